//! A request's JSON body as an extractor, refused as the API refuses everything else.
//!
//! Unlike axum's `Json`, these ask for no `Content-Type`: clients written from API.md
//! send JSON without one (`curl -d`). A body over the router's limit is refused by axum
//! itself (`413`), before any of this.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;

use super::error::ApiError;

/// The request's body, read as JSON into a `T`; `400 bad-request`, with serde's reason,
/// otherwise.
pub(crate) struct ApiJson<T>(pub(crate) T);

/// As [`ApiJson`], but a body left out (empty, or only white space) is `T`'s default:
/// for the requests whose every field is optional.
pub(crate) struct JsonOrDefault<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<ApiJson<T>, Response> {
        let body = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        parse(&body)
            .map(ApiJson)
            .map_err(IntoResponse::into_response)
    }
}

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for JsonOrDefault<T> {
    type Rejection = Response;

    async fn from_request(request: Request, state: &S) -> Result<JsonOrDefault<T>, Response> {
        let body = Bytes::from_request(request, state)
            .await
            .map_err(IntoResponse::into_response)?;
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(JsonOrDefault(T::default()));
        }
        parse(&body)
            .map(JsonOrDefault)
            .map_err(IntoResponse::into_response)
    }
}

/// `body` as JSON.
fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(|e| ApiError::bad_request(e.to_string()))
}

#[cfg(test)]
mod tests {
    use axum::Router;
    use axum::body::{Body, to_bytes};
    use axum::http::{Request, StatusCode};
    use axum::routing::post;
    use tower::ServiceExt;

    use super::*;

    #[derive(Debug, Default, serde::Deserialize)]
    struct Ask {
        #[serde(default)]
        name: Option<String>,
    }

    /// The status and body of a POST of `body` to a route that takes `ApiJson<Ask>`
    /// (`/json`) or `JsonOrDefault<Ask>` (`/default`), echoing the name it read.
    async fn post_to(path: &str, body: &'static str) -> (StatusCode, String) {
        let router = Router::new()
            .route(
                "/json",
                post(|ApiJson(ask): ApiJson<Ask>| async move { ask.name.unwrap_or_default() }),
            )
            .route(
                "/default",
                post(|JsonOrDefault(ask): JsonOrDefault<Ask>| async move {
                    ask.name.unwrap_or_else(|| "nobody".into())
                }),
            );
        let request = Request::post(path).body(Body::from(body)).unwrap();
        let response = router.oneshot(request).await.unwrap();
        let status = response.status();
        let bytes = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        (status, String::from_utf8(bytes.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn a_body_is_read_as_json_without_a_content_type() {
        assert_eq!(
            post_to("/json", r#"{"name":"kris"}"#).await,
            (StatusCode::OK, "kris".into())
        );
    }

    #[tokio::test]
    async fn malformed_json_is_a_bad_request_with_serde_s_reason() {
        let (status, body) = post_to("/json", r#"{"name":"#).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let error: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(error["code"], "bad-request", "{body}");
        assert!(error["message"].as_str().unwrap().contains("EOF"), "{body}");
        // Left out, the body is not the default where one is needed.
        assert_eq!(post_to("/json", "").await.0, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn a_body_left_out_is_the_default_where_every_field_is_optional() {
        assert_eq!(
            post_to("/default", " \n").await,
            (StatusCode::OK, "nobody".into())
        );
        assert_eq!(
            post_to("/default", r#"{"name":"anna"}"#).await,
            (StatusCode::OK, "anna".into())
        );
        assert_eq!(post_to("/default", "[").await.0, StatusCode::BAD_REQUEST);
    }
}
