//! `punct` over real networks: against a server behind a TLS proxy, as operators put
//! one on the internet (`https://` for the API and `wss://` for the game, the proxy's
//! certificate signed by an authority the player trusts with `--ca-cert`), and against a
//! server that stalls.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use punct_testing::TestServer;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use serde_json::Value;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

use crate::common::{in_background, start_server};

/// A server and a TLS proxy in front of it, stopped when dropped.
struct Proxied {
    /// The proxy's address, as a player types it.
    url: String,
    /// The PEM file of the authority that signed the proxy's certificate.
    authority: PathBuf,
    /// The server behind the proxy.
    _server: TestServer,
}

/// The proxy's certificate for `localhost`, signed by a new authority whose certificate
/// is written to `dir`.
fn certificates(dir: &Path) -> (CertificateDer<'static>, PrivateKeyDer<'static>, PathBuf) {
    let mut authority = CertificateParams::new(Vec::<String>::new()).expect("parameters");
    authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    authority
        .distinguished_name
        .push(DnType::CommonName, "punct test authority");
    let authority =
        CertifiedIssuer::self_signed(authority, KeyPair::generate().expect("key")).expect("CA");
    let key = KeyPair::generate().expect("key");
    let certificate = CertificateParams::new(vec!["localhost".to_owned()])
        .expect("parameters")
        .signed_by(&key, &authority)
        .expect("signed");
    let path = dir.join("authority.pem");
    std::fs::write(&path, authority.pem()).expect("written");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    (certificate.der().clone(), key, path)
}

fn start(dir: &Path) -> Proxied {
    let (certificate, key, authority) = certificates(dir);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .expect("protocol versions")
        .with_no_client_auth()
        .with_single_cert(vec![certificate], key)
        .expect("certificate");
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let server = start_server();
    let upstream = server.addr;
    let proxy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    proxy.set_nonblocking(true).expect("non-blocking");
    let port = proxy.local_addr().expect("address").port();
    // The proxy: TLS in, plain TCP to the server, bytes both ways.
    in_background(async move {
        let proxy = TcpListener::from_std(proxy).expect("listener");
        loop {
            let (client, _) = proxy.accept().await.expect("accept");
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut client) = acceptor.accept(client).await else {
                    return;
                };
                let mut upstream = TcpStream::connect(upstream).await.expect("server");
                let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
            });
        }
    });
    Proxied {
        url: format!("https://localhost:{port}"),
        authority,
        _server: server,
    }
}

#[test]
fn a_bot_plays_a_whole_game_over_https_and_wss() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let proxied = start(dir.path());
    let seats = dir.path().join("seats.json").display().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["bot", "--server", &proxied.url, "--ca-cert"])
        .arg(&proxied.authority)
        .args(["--create", "basic", "--color", "white", "--computer", "1"])
        .args(["--level", "2", "--ms-per-turn", "30", "--seats", &seats])
        .output()
        .expect("punct runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .expect("UTF-8")
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert_eq!(lines[0]["type"], "seat", "the room was created over HTTPS");
    let turns = lines.iter().filter(|l| l["type"] == "turn_played").count();
    assert!(turns >= 2, "both sides played over WSS: {turns} turns");
    assert_eq!(lines.last().expect("lines")["type"], "game_over");
}

#[test]
fn a_certificate_nobody_trusts_is_refused() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let proxied = start(dir.path());
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["play", "--server", &proxied.url, "--create", "standard"])
        .args(["--script", "-"])
        .env_remove("PUNCT_CA_CERT")
        .output()
        .expect("punct runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("certificate"), "{stderr}");
}

#[test]
fn a_server_that_never_answers_is_given_up_on() {
    // It takes the connection and then says nothing, ever.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}", silent.local_addr().expect("address"));
    let started = std::time::Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_punct"))
        .args(["play", "--server", &url, "--timeout", "300ms"])
        .args(["--create", "standard", "--script", "-"])
        .output()
        .expect("punct runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("timed out"), "{stderr}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "given up after the timeout, not the default"
    );
    drop(silent);
}
