//! How the page speaks to each of punct's WebAssembly modules (`punct-rules-wasm`,
//! `punct-engine-wasm`): in text. The page asks `input(len)` for a buffer of the
//! request's length, writes the request there as UTF-8, calls `answer()`, which answers
//! the answer's length in bytes, and reads that many bytes at `output()`.
//!
//! [`text_module!`] writes those three exports around a module's `respond(&str) ->
//! String`, so that both modules keep one copy of them. It expands in the module's own
//! crate, whose lints allow `unsafe_code` on the exports alone (an export must keep its
//! name, `#[unsafe(no_mangle)]`, for the page to find it).

/// Writes the exports `input`, `answer` and `output` that hand the page's requests to
/// `$respond` and its answers back (see the crate's docs).
#[macro_export]
macro_rules! text_module {
    ($respond:path) => {
        ::std::thread_local! {
            /// The request the page writes, and the answer it reads: the module runs on
            /// one thread, and the page copies each answer out before it asks again.
            static BUFFERS: ::std::cell::RefCell<(Vec<u8>, Vec<u8>)> =
                const { ::std::cell::RefCell::new((Vec::new(), Vec::new())) };
        }

        /// Makes room for a request of `len` bytes and answers where the page writes it.
        #[allow(
            unsafe_code,
            reason = "an export must keep its name for the page to find it"
        )]
        #[unsafe(no_mangle)]
        pub extern "C" fn input(len: usize) -> *mut u8 {
            BUFFERS.with_borrow_mut(|(request, _)| {
                request.clear();
                request.resize(len, 0);
                request.as_mut_ptr()
            })
        }

        /// Answers the request written at [`input`]; answers the answer's length in
        /// bytes.
        #[allow(
            unsafe_code,
            reason = "an export must keep its name for the page to find it"
        )]
        #[unsafe(no_mangle)]
        pub extern "C" fn answer() -> usize {
            BUFFERS.with_borrow_mut(|(request, answer)| {
                let text = String::from_utf8_lossy(request);
                *answer = $respond(&text).into_bytes();
                answer.len()
            })
        }

        /// Where the last answer is.
        #[allow(
            unsafe_code,
            reason = "an export must keep its name for the page to find it"
        )]
        #[unsafe(no_mangle)]
        pub extern "C" fn output() -> *const u8 {
            BUFFERS.with_borrow(|(_, answer)| answer.as_ptr())
        }
    };
}
