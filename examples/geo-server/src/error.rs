//! One error type for the API, answered as JSON with the right status.

use axum::Json;
use axum::response::{IntoResponse, Response};
use http::StatusCode;

use crate::address::AddressError;

/// What went wrong with an API request.
///
/// ```
/// use axum::response::IntoResponse;
/// let response = geo_server::error::AppError::NotFound.into_response();
/// assert_eq!(response.status(), http::StatusCode::NOT_FOUND);
/// ```
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The address is malformed.
    #[error(transparent)]
    BadAddress(#[from] AddressError),
    /// `?lang=` names a language the API does not have.
    #[error("unknown language `{0}` (expected one of en, de, fr, es, ja, pt-BR, ru, zh-CN)")]
    BadLanguage(String),
    /// The database has no data for the address (private, reserved, unknown).
    #[error("address not found in the database")]
    NotFound,
    /// The database has no data for the caller's own address (`/geo/me`), named in the answer.
    #[error("address not found in the database")]
    NotFoundAddress(std::net::IpAddr),
    /// `/geo/me` behind a trusted proxy whose forwarding header names no client address.
    #[error("cannot tell the client's address: {0}")]
    UnknownClient(#[from] bindery::serve::server::Unknown),
    /// An IPv6 address looked up in an IPv4-only database.
    #[error("{0}")]
    Unsupported(String),
    /// The answer was not ready within the request timeout.
    #[error("request timed out")]
    TimedOut,
    /// A fault of the server; details are logged, not sent.
    #[error("internal error")]
    Internal(String),
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let status = match &self {
            AppError::BadAddress(_) | AppError::BadLanguage(_) | AppError::UnknownClient(_) => {
                StatusCode::BAD_REQUEST
            }
            AppError::NotFound | AppError::NotFoundAddress(_) | AppError::Unsupported(_) => {
                StatusCode::NOT_FOUND
            }
            AppError::TimedOut => StatusCode::REQUEST_TIMEOUT,
            AppError::Internal(detail) => {
                tracing::error!(%detail, "internal error");
                StatusCode::INTERNAL_SERVER_ERROR
            }
        };
        let mut body = serde_json::json!({ "error": self.to_string(), "status": status.as_u16() });
        if let AppError::NotFoundAddress(ip) = &self {
            body["ip"] = serde_json::Value::String(ip.to_string());
        }
        (status, Json(body)).into_response()
    }
}
