//! Real addresses behind a proxy (`--trusted-proxies`), over real sockets: a trusted
//! proxy is believed about its clients (`X-Forwarded-For`, `Forwarded`, HAProxy's PROXY
//! protocol version 2), and every per-address limit counts them apart; anyone else's
//! word is ignored.

use std::net::SocketAddr;

use punct_server::Config;
use punct_testing::TestServer;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// A PROXY version 2 header as HAProxy's `send-proxy-v2` writes it: `PROXY` over TCP
/// from `client` (IPv4) to port 8080 of 10.0.0.5.
fn proxy_v2(client: [u8; 4]) -> Vec<u8> {
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.extend([0x21, 0x11, 0x00, 0x0c]);
    header.extend(client);
    header.extend([10, 0, 0, 5, 0xc3, 0x50, 0x1f, 0x90]);
    header
}

/// `LOCAL`: HAProxy's own health check.
fn proxy_v2_local() -> Vec<u8> {
    let mut header = b"\r\n\r\n\0\r\nQUIT\n".to_vec();
    header.extend([0x20, 0x00, 0x00, 0x00]);
    header
}

/// Sends `prefix` (a PROXY header, or nothing), then `method path` with `headers` and
/// `body`, on a connection of its own; answers the status (0 if the server closed the
/// connection without one).
async fn send(
    addr: SocketAddr,
    prefix: &[u8],
    (method, path): (&str, &str),
    headers: &[(&str, &str)],
    body: &str,
) -> u16 {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut request = prefix.to_vec();
    request.extend(
        format!("{method} {path} HTTP/1.1\r\nHost: punct\r\nConnection: close\r\n").as_bytes(),
    );
    for (name, value) in headers {
        request.extend(format!("{name}: {value}\r\n").as_bytes());
    }
    request.extend(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    stream.write_all(&request).await.unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer).await;
    let answer = String::from_utf8_lossy(&answer);
    answer
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .map_or(0, |status| status.parse().unwrap())
}

/// `POST /api/rooms` with `headers` after `prefix`: its status.
async fn create_room(addr: SocketAddr, prefix: &[u8], headers: &[(&str, &str)]) -> u16 {
    send(addr, prefix, ("POST", "/api/rooms"), headers, "").await
}

/// Opens a WebSocket with `headers`: the socket, or the status it was refused with.
async fn websocket(addr: SocketAddr, headers: &[(&'static str, &str)]) -> Result<impl Sized, u16> {
    let mut request = format!("ws://{addr}/ws").into_client_request().unwrap();
    for (name, value) in headers {
        request.headers_mut().insert(*name, value.parse().unwrap());
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => Ok(socket),
        Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
            Err(response.status().as_u16())
        }
        Err(e) => panic!("{e}"),
    }
}

fn config(trusted: &[&str]) -> Config {
    Config {
        trusted_proxies: trusted.iter().map(|range| range.parse().unwrap()).collect(),
        rooms_per_minute: 2,
        max_connections_per_ip: 1,
        sign_ins_per_minute: 2,
        ..Config::default()
    }
}

const XFF: &str = "X-Forwarded-For";

const HEALTH: (&str, &str) = ("GET", "/healthz");

#[tokio::test]
async fn a_spoofed_forwarded_address_from_an_untrusted_peer_changes_nothing() {
    // The test connects from 127.0.0.1, which is not among the trusted proxies.
    let server = TestServer::with(config(&["10.0.0.0/8"])).await;
    let addr = server.addr;
    assert_eq!(create_room(addr, &[], &[(XFF, "198.51.100.1")]).await, 201);
    assert_eq!(
        create_room(addr, &[], &[("Forwarded", "for=198.51.100.2")]).await,
        201
    );
    assert_eq!(
        create_room(addr, &[], &[(XFF, "198.51.100.3")]).await,
        429,
        "all three are 127.0.0.1's"
    );
    let _open = websocket(addr, &[(XFF, "198.51.100.1")]).await.unwrap();
    assert_eq!(
        websocket(addr, &[(XFF, "198.51.100.2")]).await.err(),
        Some(429)
    );
    // Nor is a PROXY header read from it: it is no HTTP request.
    let status = send(addr, &proxy_v2([198, 51, 100, 4]), HEALTH, &[], "").await;
    assert!(status == 0 || status == 400, "{status}");
}

#[tokio::test]
async fn a_trusted_proxy_s_forwarded_addresses_are_counted_apart() {
    let server = TestServer::with(config(&["127.0.0.0/8", "10.0.0.0/8"])).await;
    let addr = server.addr;
    // The left-most hop is the client's own word; the right-most untrusted one counts.
    let first = [(XFF, "203.0.113.9, 198.51.100.1, 10.0.0.7")];
    assert_eq!(create_room(addr, &[], &first).await, 201);
    assert_eq!(
        create_room(addr, &[], &[(XFF, "192.0.2.1, 198.51.100.1")]).await,
        201
    );
    assert_eq!(create_room(addr, &[], &[(XFF, "198.51.100.1")]).await, 429);
    assert_eq!(
        create_room(addr, &[], &[("Forwarded", "for=198.51.100.1")]).await,
        429
    );
    let other = [("Forwarded", r#"for="[2001:db8::2]:4711";proto=http"#)];
    assert_eq!(create_room(addr, &[], &other).await, 201);
    assert_eq!(create_room(addr, &[], &[]).await, 201, "the proxy's own");

    // Connections per address.
    let _open = websocket(addr, &[(XFF, "198.51.100.1")]).await.unwrap();
    assert_eq!(
        websocket(addr, &[(XFF, "198.51.100.1")]).await.err(),
        Some(429)
    );
    assert!(websocket(addr, &[(XFF, "198.51.100.2")]).await.is_ok());

    // Sign-ins per address.
    let sign_in = |client| {
        let headers = [(XFF, client), ("Content-Type", "application/json")];
        let body = r#"{"username":"nobody","password":"not the password"}"#;
        async move { send(addr, &[], ("POST", "/api/session"), &headers, body).await }
    };
    assert_eq!(sign_in("198.51.100.1").await, 401);
    assert_eq!(sign_in("198.51.100.1").await, 401);
    assert_eq!(sign_in("198.51.100.1").await, 429);
    assert_eq!(sign_in("198.51.100.2").await, 401);
}

#[tokio::test]
async fn haproxy_s_proxy_protocol_header_names_the_client() {
    let server = TestServer::with(config(&["127.0.0.0/8"])).await;
    let addr = server.addr;
    let client = proxy_v2([198, 51, 100, 7]);
    assert_eq!(create_room(addr, &client, &[]).await, 201);
    // The client is no trusted proxy: what it says it forwards is its own word.
    assert_eq!(create_room(addr, &client, &[(XFF, "192.0.2.1")]).await, 201);
    assert_eq!(create_room(addr, &client, &[(XFF, "192.0.2.2")]).await, 429);
    assert_eq!(
        create_room(addr, &proxy_v2([198, 51, 100, 8]), &[]).await,
        201
    );
    // HAProxy's health checks, with a LOCAL header or none, are its own.
    assert_eq!(send(addr, &proxy_v2_local(), HEALTH, &[], "").await, 200);
    assert_eq!(send(addr, &[], HEALTH, &[], "").await, 200);
    assert_eq!(create_room(addr, &proxy_v2_local(), &[]).await, 201);
}
