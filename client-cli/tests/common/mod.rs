//! A server for `punct` processes to talk to, in the test's process.

#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use std::net::SocketAddr;

/// A server on a free port of its own runtime, stopped when dropped.
pub(crate) struct TestServer {
    /// Where it listens.
    pub(crate) addr: SocketAddr,
    /// Its URL.
    pub(crate) url: String,
    /// Dropping it stops the server.
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// Runs `work` on a runtime of its own, on a thread of its own, for the rest of the test.
pub(crate) fn in_background(work: impl Future<Output = ()> + Send + 'static) {
    std::thread::spawn(move || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime")
            .block_on(work);
    });
}

/// A server whose computer thinks briefly, so that games against it are quick.
pub(crate) fn start_server() -> TestServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("non-blocking");
    let addr = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    in_background(async move {
        let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
        let config = punct_server::Config {
            computer_think_time: std::time::Duration::from_millis(20),
            ..punct_server::Config::default()
        };
        punct_server::run(listener, config, async move {
            let _ = stopped.await;
        })
        .await
        .expect("server");
    });
    TestServer {
        addr,
        url: format!("http://{addr}"),
        _stop: stop,
    }
}
