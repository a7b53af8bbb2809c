//! A room nobody joined can be cancelled by its creator (API.md,
//! `POST /api/rooms/{id}/cancel`); once someone takes the other seat it cannot.

use punct_protocol::ErrorCode;
use punct_testing::{TestServer, api_error};

#[tokio::test]
async fn the_creator_cancels_a_room_nobody_joined() {
    let server = TestServer::start().await;
    let granted = server.create_room(r#"{"color":"white"}"#).await;
    let path = format!("/api/rooms/{}/cancel", granted.room);
    // The creator is in the room when it goes: the connection closes.
    let mut creator = server.player(&granted.room, &granted.token).await;

    let (status, body) = server.http("POST", &path, r#"{"token":"0123"}"#).await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::BadToken));
    let (status, body) = server.http("POST", &path, "").await;
    assert_eq!((status, api_error(&body)), (401, ErrorCode::SignInRequired));

    let token = format!(r#"{{"token":"{}"}}"#, granted.token);
    assert_eq!(server.http("POST", &path, &token).await.0, 204);
    creator.closed().await;
    let (status, body) = server
        .http("GET", &format!("/api/rooms/{}", granted.room), "")
        .await;
    assert_eq!((status, api_error(&body)), (404, ErrorCode::NoSuchRoom));
    let mut again = server.client().await;
    assert_eq!(
        again.join_refused(&granted.room, &granted.token).await,
        ErrorCode::NoSuchRoom
    );
    let (status, body) = server.http("POST", &path, &token).await;
    assert_eq!((status, api_error(&body)), (404, ErrorCode::NoSuchRoom));
}

#[tokio::test]
async fn a_room_someone_joined_cannot_be_cancelled() {
    let server = TestServer::start().await;
    let table = server.table("standard").await;
    let path = format!("/api/rooms/{}/cancel", table.room);
    let body = format!(r#"{{"token":"{}"}}"#, table.white);
    let (status, body) = server.http("POST", &path, &body).await;
    assert_eq!((status, api_error(&body)), (409, ErrorCode::NotCancellable));
    assert_eq!(server.summary(&table.room).await.room, table.room);
}

#[tokio::test]
async fn a_signed_in_creator_cancels_by_account() {
    let server = TestServer::start().await;
    let session = server.register("anna", "correct horse battery").await;
    let anna = server.signed_in(&session);
    let granted = anna.create_room("").await;
    let path = format!("/api/rooms/{}/cancel", granted.room);
    // Someone else's session holds no seat there.
    let other = server.register("bert", "another good password").await;
    let (status, body) = server.signed_in(&other).http("POST", &path, "").await;
    assert_eq!((status, api_error(&body)), (403, ErrorCode::NotAPlayer));
    assert_eq!(anna.http("POST", &path, "").await.0, 204);
    let (status, _) = server
        .http("GET", &format!("/api/rooms/{}", granted.room), "")
        .await;
    assert_eq!(status, 404);
}
