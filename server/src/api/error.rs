//! The one error type of the HTTP edge: a status, a code and a message, answered as
//! `{"code": "...", "message": "..."}`. The status and the default message come from the
//! table in `errors`, which the WebSocket side reads too. The message is written in
//! English here; `language::localize` tells it in the reader's language on the way out.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use punct_protocol::ErrorCode;

use crate::errors;
use crate::errors::Refused;
use crate::i18n::Lang;
use crate::store::StoreError;

/// A refused HTTP request.
#[derive(Debug)]
pub(crate) struct ApiError {
    /// The HTTP status.
    status: StatusCode,
    /// What went wrong, for programs.
    code: ErrorCode,
    /// What went wrong, for people.
    message: String,
}

impl ApiError {
    /// `code`, told as `message`, with the code's status.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status: errors::status(code),
            code,
            message: message.into(),
        }
    }

    /// `code` with another status than the table's (`too-many-connections` for one
    /// address is `429`).
    pub(crate) fn with_status(self, status: StatusCode) -> ApiError {
        ApiError { status, ..self }
    }

    /// A `400 bad-request`, told as `message`.
    pub(crate) fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadRequest, message)
    }

    /// A `503 storage-failed` for `e`, which is logged with what was being done.
    pub(crate) fn storage(doing: &str, e: &StoreError) -> ApiError {
        let error: &dyn std::error::Error = e;
        tracing::error!(error, "{doing}");
        ApiError::from(ErrorCode::StorageFailed)
    }
}

/// Marks an answer that is an `ApiError` of this code, for `language::localize`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnswerCode(pub(crate) ErrorCode);

impl From<ErrorCode> for ApiError {
    /// `code`, with its status and its message.
    fn from(code: ErrorCode) -> ApiError {
        ApiError::new(code, errors::message(code, Lang::En))
    }
}

impl From<Refused> for ApiError {
    fn from(Refused { code, message, .. }: Refused) -> ApiError {
        ApiError::new(code, message)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let ApiError {
            status,
            code,
            message,
        } = self;
        let mut response =
            (status, Json(punct_protocol::ApiError { code, message })).into_response();
        response.extensions_mut().insert(AnswerCode(code));
        response
    }
}
