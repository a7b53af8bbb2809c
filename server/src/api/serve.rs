//! Serving the routes on the connections the listener accepts: HTTP/1.1 with upgrades
//! (the WebSocket), in place of `axum::serve`, for one setting it lacks.
//!
//! `axum::serve` gives hyper no timer, so hyper's header read timeout never fires: a
//! client could hold a connection open for ever by sending nothing, or a header a byte
//! a minute, and a browser's kept-alive connections were never closed. Each one holds a
//! file, and a process may open 20,000. Here a request's head must arrive within
//! `--header-timeout` of the connection opening or of the previous response; an
//! upgraded connection is the WebSocket's, which pings and times out by itself.

use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::Request;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use crate::proxy::{Listener, Peer};

/// Serves `router` on the connections of `listener` until `shutdown` completes; then
/// stops accepting, lets each connection finish the request it is serving (a WebSocket
/// is told by the server's own stop signal, and closes), and returns once all are closed.
pub(crate) async fn serve(
    mut listener: Listener,
    router: Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) {
    let (stop, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = axum::serve::Listener::accept(&mut listener) => accepted,
            () = &mut shutdown => break,
            // Reap the finished ones as they go, so the set holds only the open.
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        // What axum's `into_make_service_with_connect_info` did: each request carries
        // where its connection is from.
        let peer = ConnectInfo(Peer::from(peer));
        let service = router
            .clone()
            .map_request(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(peer);
                request
            });
        let service = TowerToHyperService::new(service);
        let mut stopping = stopping.clone();
        connections.spawn(async move {
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new())
                .header_read_timeout(header_timeout);
            let connection = http.serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection.with_upgrades());
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stopping.wait_for(|&stop| stop) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = stop.send(true);
    while connections.join_next().await.is_some() {}
}
