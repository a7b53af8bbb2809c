//! Passwords hashed with Argon2id: the `argon2` crate's defaults (OWASP's recommended
//! 19 MiB and two passes), as PHC strings, on blocking threads, and never logged.
//!
//! Each hash fills 19 MiB and keeps a core busy. At most one hash a core runs at once
//! (more would only wait for a core while holding their memory), and each runs in
//! memory kept from the last one rather than its own: when every hash allocated its
//! own, a thousand sign-ups took a server from 15 MiB to 3.4 GiB, because the allocator
//! kept what the blocking threads had freed.

use std::num::NonZero;
use std::sync::{LazyLock, Mutex, PoisonError};

use argon2::password_hash::phc::{Output, ParamsString, PasswordHash, Salt};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::{OnceCell, Semaphore};

use crate::secret;

/// The hashes running and the memory they use.
struct Hashing {
    /// A permit for each hash that may run at once.
    permits: Semaphore,
    /// The blocks of the hashes not running now; one per permit at most.
    memory: Mutex<Vec<Vec<Block>>>,
}

static HASHING: LazyLock<Hashing> = LazyLock::new(|| Hashing {
    permits: Semaphore::new(at_once()),
    memory: Mutex::new(Vec::new()),
});

/// How many hashes run at once: one a core.
fn at_once() -> usize {
    std::thread::available_parallelism().map_or(1, NonZero::get)
}

/// Runs `work` on a blocking thread once a permit is free, with kept memory blocks, as
/// many as a hash with the default parameters needs; `None` if it panicked. The permit and the memory go back when the work is done, even if
/// the caller has stopped waiting for it.
async fn run<T: Send + 'static>(
    work: impl FnOnce(&mut [Block]) -> T + Send + 'static,
) -> Option<T> {
    let permit = HASHING.permits.acquire().await.ok()?;
    let hashing = tokio::task::spawn_blocking(move || {
        let kept = HASHING
            .memory
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut memory = kept.unwrap_or_default();
        let needed = Params::default().block_count();
        if memory.len() < needed {
            memory.resize(needed, Block::default());
        }
        let answer = work(&mut memory);
        HASHING
            .memory
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(memory);
        drop(permit);
        answer
    });
    hashing.await.ok()
}

/// `password` hashed with a fresh salt, as a PHC string; `None` if it could not be.
pub(crate) async fn hash(password: String) -> Option<String> {
    let salt = secret::salt();
    run(move |memory| phc_string(&password, &salt, memory)).await?
}

/// `password` hashed with `salt` and the default parameters in `memory`, as
/// `argon2`'s `PasswordHasher` writes it.
fn phc_string(password: &str, salt: &[u8], memory: &mut [Block]) -> Option<String> {
    let argon2 = Argon2::default();
    let params = Params::default();
    let mut out = vec![0; params.output_len().unwrap_or(Params::DEFAULT_OUTPUT_LEN)];
    argon2
        .hash_password_into_with_memory(password.as_bytes(), salt, &mut out, memory)
        .ok()?;
    let hash = PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::default().into()),
        params: ParamsString::try_from(&params).ok()?,
        salt: Some(Salt::new(salt).ok()?),
        hash: Some(Output::new(&out).ok()?),
    };
    Some(hash.to_string())
}

/// Whether `password` is the one `hash` (a PHC string) was made from.
pub(crate) async fn verify(password: String, hash: String) -> bool {
    run(move |memory| matches(&password, &hash, memory))
        .await
        .unwrap_or(false)
}

/// Whether `password` hashes to `hash` with its algorithm, version, parameters and
/// salt, hashed in `memory` (or in memory of its own, if its parameters need more).
fn matches(password: &str, hash: &str, memory: &mut [Block]) -> bool {
    let Ok(parsed) = PasswordHash::new(hash) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        Algorithm::try_from(parsed.algorithm.as_str()),
        Params::try_from(&parsed),
    ) else {
        return false;
    };
    let version = match parsed.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(version)) => version,
        Some(Err(_)) => return false,
    };
    let argon2 = Argon2::new(algorithm, version, params.clone());
    let mut out = vec![0; expected.len()];
    let hashed = match memory.len() >= params.block_count() {
        true => argon2.hash_password_into_with_memory(password.as_bytes(), salt, &mut out, memory),
        false => argon2.hash_password_into(password.as_bytes(), salt, &mut out),
    };
    // `Output`'s equality takes the same time wherever the first difference is.
    hashed.is_ok() && Output::new(&out).is_ok_and(|computed| computed == *expected)
}

/// A hash of a password nobody knows, made once: what a sign-in to a username nobody has
/// is checked against, so that it takes as long as one to an account.
pub(crate) async fn dummy_hash() -> String {
    static DUMMY: OnceCell<String> = OnceCell::const_new();
    let made = DUMMY
        .get_or_init(|| async { hash(secret::token()).await.unwrap_or_default() })
        .await;
    made.clone()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_hash_and_no_other() {
        let hash = hash("correct horse".into()).await.unwrap();
        assert!(
            hash.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"),
            "{hash}"
        );
        assert!(!hash.contains("correct horse"));
        assert!(verify("correct horse".into(), hash.clone()).await);
        assert!(!verify("correct horsf".into(), hash.clone()).await);
        // A fresh salt each time.
        assert_ne!(hash, self::hash("correct horse".into()).await.unwrap());
        assert!(!verify("anything".into(), dummy_hash().await).await);
        assert!(!verify("anything".into(), "not a PHC string".into()).await);
    }

    #[test]
    fn hashes_in_memory_used_before_are_argon2_s_own() {
        let salt = secret::salt();
        let own = Argon2::default()
            .hash_password_with_salt(b"correct horse", &salt)
            .unwrap()
            .to_string();
        // Memory a hash of another password filled: each hash overwrites it all.
        let mut memory = vec![Block::default(); Params::default().block_count()];
        let other = phc_string("another", &salt, &mut memory).unwrap();
        assert_eq!(
            phc_string("correct horse", &salt, &mut memory),
            Some(own.clone())
        );
        assert_ne!(other, own);
        // Stored hashes, made by `argon2` itself, still verify; ours verify there.
        assert!(matches("correct horse", &own, &mut memory));
        assert!(!matches("correct horsf", &own, &mut memory));
        let ours = phc_string("battery staple", &salt, &mut memory).unwrap();
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"battery staple", &parsed)
                .is_ok()
        );
        // Parameters needing more memory than is kept hash in memory of their own.
        let bigger = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(32 * 1024, 1, 1, None).unwrap(),
        );
        let bigger = bigger
            .hash_password_with_salt(b"pw", &salt)
            .unwrap()
            .to_string();
        assert!(matches("pw", &bigger, &mut memory));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn no_more_hashes_run_at_once_than_there_are_cores_and_each_keeps_its_memory() {
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let works = (0..4 * at_once()).map(|_| {
            let (running, most) = (running.clone(), most.clone());
            tokio::spawn(run(move |memory| {
                let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                most.fetch_max(now, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                running.fetch_sub(1, Ordering::SeqCst);
                memory.len()
            }))
        });
        for work in futures_util::future::join_all(works).await {
            assert_eq!(work.unwrap(), Some(Params::default().block_count()));
        }
        // Other tests' hashes may hold permits meanwhile: at most, then.
        let most = most.load(Ordering::SeqCst);
        assert!((1..=at_once()).contains(&most), "{most} at once");
        let kept = HASHING.memory.lock().unwrap().len();
        assert!(kept <= at_once(), "{kept} blocks of memory kept");
    }
}
