//! What operators ask: whether the server lives and is ready, its counters, and which
//! node of a cluster it is.

use std::time::Duration;

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use punct_protocol::NodeView;

use crate::metrics::Gauges;
use crate::state::AppState;

/// How long `/readyz` waits for the database to answer.
const PING_WAIT: Duration = Duration::from_millis(1500);

/// The routes of health, metrics and the node.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route("/api/node", get(node))
}

/// `GET /healthz`: the process serves.
async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: ready to take games: the database answers and the server is not
/// shutting down.
async fn readyz(State(state): State<AppState>) -> (StatusCode, &'static str) {
    if state.services.shutdown.is_shutdown() {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down\n");
    }
    // A database cut off may hold the question for as long as TCP retransmits: the
    // answer is due now (a health check gives a step 2 s).
    let failure = match tokio::time::timeout(PING_WAIT, state.services.store.ping()).await {
        Ok(Ok(())) => return (StatusCode::OK, "ready\n"),
        Ok(Err(e)) => e.to_string(),
        Err(_) => format!("the database did not answer within {PING_WAIT:?}"),
    };
    tracing::error!("not ready: {failure}");
    (StatusCode::SERVICE_UNAVAILABLE, "database unavailable\n")
}

/// `GET /metrics`: the counters, in the Prometheus text format.
async fn metrics(State(state): State<AppState>) -> Response {
    let page = state.services.metrics.render(Gauges {
        connections: state.config.max_connections - state.connections.available_permits(),
        max_connections: state.config.max_connections,
        lease_held: state.services.nodes.lease().held(),
        rooms: state
            .rooms
            .running_summaries()
            .iter()
            .map(|room| room.status)
            .collect(),
        computers: state.services.computers.load(),
    });
    let content_type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    ([(header::CONTENT_TYPE, content_type)], page).into_response()
}

/// `GET /api/node`: this node's tag and the live nodes' (a single server: 0 alone).
async fn node(State(state): State<AppState>) -> Json<NodeView> {
    let nodes = &state.services.nodes;
    let mut live: Vec<u32> = nodes.live().borrow().iter().copied().collect();
    live.sort_unstable();
    Json(NodeView {
        node: nodes.tag(),
        live,
    })
}
