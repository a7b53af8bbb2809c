//! Who a connection is really from, behind proxies the operator trusts
//! (`--trusted-proxies`).
//!
//! - Only a connection whose TCP peer is in a trusted range is believed about anyone
//!   else's address; everyone else's headers and bytes are taken as they come.
//! - [`Listener`] accepts connections. One from a trusted proxy that opens with
//!   HAProxy's PROXY protocol version 2 header is read from the address the header names
//!   (the header is consumed; the HTTP request follows it). The header is read on its
//!   own, beside the accept loop, so a proxy slow to send it delays nobody else.
//! - [`TrustedProxies::client`] reads `X-Forwarded-For`, or `Forwarded: for=` (RFC 7239)
//!   if the request has no `X-Forwarded-For`, from right to left, past the trusted
//!   proxies: the client is the right-most address that is not itself trusted. Hops to
//!   its left were written by the client and could say anything.

use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::ExtensionRejection;
use axum::extract::{ConnectInfo, FromRef, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, header};
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use ipnet::IpNet;
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

/// How long a trusted proxy has to send its PROXY header once connected.
const HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// The PROXY protocol version 2 signature: no HTTP request starts with it.
const SIGNATURE: [u8; 12] = *b"\r\n\r\n\0\r\nQUIT\n";

/// The signature, the version and command, the family, and the length of the rest.
const FIXED: usize = 16;

/// The address ranges whose connections are believed about the client's address.
#[derive(Clone, Debug, Default)]
pub(crate) struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Trusts connections from `ranges`.
    pub(crate) fn new(ranges: &[IpNet]) -> TrustedProxies {
        TrustedProxies(ranges.to_vec())
    }

    /// Whether `ip` is a trusted proxy's.
    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        // An IPv4 peer of a socket listening on IPv6 comes as `::ffff:a.b.c.d`.
        let ip = ip.to_canonical();
        self.0.iter().any(|range| range.contains(&ip))
    }

    /// The address of the client that sent a request with `headers` over a connection
    /// from `peer`: `peer` itself unless it is trusted; then the right-most address of
    /// the forwarding header that is not trusted (or the left-most, if all are). A hop
    /// that is no address (`unknown`, an obfuscated name, garbage) ends the walk: what
    /// lies to its left is not vouched for by anyone trusted.
    pub(crate) fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        let mut client = peer;
        if !self.trusts(client) {
            return client;
        }
        for hop in forwarded_for(headers).into_iter().rev() {
            let Some(ip) = hop else { break };
            client = ip.to_canonical();
            if !self.trusts(client) {
                break;
            }
        }
        client
    }
}

/// The hops of `X-Forwarded-For`, or if there is none of `Forwarded`'s `for=`, client
/// first, every line of the header in order; `None` for a hop that is no address.
fn forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    let lines = |name| {
        headers
            .get_all(name)
            .iter()
            .map(|v| v.to_str().unwrap_or(""))
            .flat_map(|v| v.split(','))
            .map(str::trim)
    };
    if headers.contains_key("x-forwarded-for") {
        return lines("x-forwarded-for").map(node_address).collect();
    }
    lines(header::FORWARDED.as_str())
        .map(|element| {
            let node = element.split(';').find_map(|pair| {
                let (name, value) = pair.trim().split_once('=')?;
                name.eq_ignore_ascii_case("for").then_some(value)
            })?;
            node_address(node)
        })
        .collect()
}

/// The address of a hop: `192.0.2.60`, `2001:db8::1`, or either with a port as
/// `Forwarded` writes them (`192.0.2.60:4711`, `"[2001:db8::1]:4711"`), which some
/// proxies write in `X-Forwarded-For` too.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim_matches('"');
    if let Ok(ip) = node.parse() {
        return Some(ip);
    }
    if let Some(v6) = node.strip_prefix('[') {
        return v6.split_once(']')?.0.parse().ok();
    }
    node.split_once(':')?.0.parse().ok()
}

/// Where a connection is from, as [`Listener`] accepted it: its TCP peer, or the
/// client its trusted proxy's PROXY header names: each request's `ConnectInfo`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Peer(SocketAddr);

impl From<SocketAddr> for Peer {
    fn from(address: SocketAddr) -> Peer {
        Peer(address)
    }
}

/// The address a request comes from, as far as the server can tell: the connection's
/// (or its PROXY header's), or, from a trusted proxy, the client's it forwards
/// ([`TrustedProxies::client`]). Every per-address limit counts by it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientAddr(pub(crate) IpAddr);

impl<S> FromRequestParts<S> for ClientAddr
where
    S: Send + Sync,
    Arc<TrustedProxies>: FromRef<S>,
{
    type Rejection = ExtensionRejection;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let ConnectInfo(Peer(peer)) = ConnectInfo::<Peer>::from_request_parts(parts, state).await?;
        let proxies = Arc::<TrustedProxies>::from_ref(state);
        Ok(ClientAddr(proxies.client(peer.ip(), &parts.headers)))
    }
}

/// What a PROXY version 2 header says.
#[derive(Debug, PartialEq, Eq)]
enum Header {
    /// The proxy speaks for itself (a health check): the connection is its own.
    Local,
    /// The proxy relays a client at this address.
    Proxied(SocketAddr),
    /// Relayed from an address of no IP family (a Unix socket, unspecified): the
    /// connection counts as the proxy's own.
    Unknown,
}

/// Why a PROXY header was refused.
#[derive(Debug, PartialEq, Eq)]
enum BadHeader {
    /// Not version 2.
    Version(u8),
    /// A command other than `LOCAL` and `PROXY`.
    Command(u8),
    /// Shorter than its family's addresses.
    Short,
}

/// The length of the header that starts with the 16 bytes `fixed`, if they are the
/// start of one: the signature, then the length of what follows in big-endian order.
fn header_length(fixed: &[u8; FIXED]) -> Option<usize> {
    (fixed[..12] == SIGNATURE)
        .then(|| FIXED + usize::from(u16::from_be_bytes([fixed[14], fixed[15]])))
}

/// Reads a whole PROXY version 2 header (`header_length` bytes, signature included).
fn parse(header: &[u8]) -> Result<Header, BadHeader> {
    let (version, command) = (header[12] >> 4, header[12] & 0x0f);
    if version != 2 {
        return Err(BadHeader::Version(version));
    }
    let body = &header[FIXED..];
    let port = |at: usize| u16::from_be_bytes([body[at], body[at + 1]]);
    match command {
        0 => Ok(Header::Local),
        1 => match header[13] >> 4 {
            // AF_INET: source and destination addresses, then ports; TLVs after.
            1 if body.len() >= 12 => {
                let mut ip = [0; 4];
                ip.copy_from_slice(&body[..4]);
                Ok(Header::Proxied(SocketAddr::from((
                    Ipv4Addr::from(ip),
                    port(8),
                ))))
            }
            // AF_INET6.
            2 if body.len() >= 36 => {
                let mut ip = [0; 16];
                ip.copy_from_slice(&body[..16]);
                Ok(Header::Proxied(SocketAddr::from((
                    Ipv6Addr::from(ip),
                    port(32),
                ))))
            }
            1 | 2 => Err(BadHeader::Short),
            _ => Ok(Header::Unknown),
        },
        other => Err(BadHeader::Command(other)),
    }
}

/// A connection from a trusted proxy, from `peer`, with its PROXY header read if it
/// opens with one; `None` (and closed) if the header is broken or slow to come.
async fn handshake(mut stream: TcpStream, peer: SocketAddr) -> Option<(TcpStream, SocketAddr)> {
    let read = async {
        let Some(length) = peek_header(&stream).await? else {
            // No PROXY header: a plain connection of the proxy, whose requests may
            // carry `X-Forwarded-For`.
            return Ok(peer);
        };
        let mut header = vec![0; length];
        stream.read_exact(&mut header).await?;
        match parse(&header) {
            Ok(Header::Proxied(client)) => Ok(client),
            Ok(Header::Local | Header::Unknown) => Ok(peer),
            Err(bad) => Err(io::Error::other(format!("{bad:?}"))),
        }
    };
    match tokio::time::timeout(HEADER_TIMEOUT, read).await {
        Ok(Ok(client)) => Some((stream, client)),
        Ok(Err(e)) => {
            tracing::warn!(%peer, "a trusted proxy's PROXY header is refused: {e}");
            None
        }
        Err(_) => {
            tracing::warn!(%peer, "a trusted proxy sent no request in {HEADER_TIMEOUT:?}");
            None
        }
    }
}

/// The length of the PROXY header `stream` opens with, looked at without reading it;
/// `None` once its first bytes show it opens with something else.
async fn peek_header(stream: &TcpStream) -> io::Result<Option<usize>> {
    let mut fixed = [0; FIXED];
    loop {
        stream.readable().await?;
        let seen = stream.peek(&mut fixed).await?;
        if seen == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let signature = seen.min(SIGNATURE.len());
        if fixed[..signature] != SIGNATURE[..signature] {
            return Ok(None);
        }
        if seen == FIXED {
            return Ok(header_length(&fixed));
        }
        // Part of a header has come: peeking again returns at once, so wait a little
        // for the rest rather than spin. Proxies send the header in one segment.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// The server's listener: accepts TCP connections with `TCP_NODELAY` set, and reads
/// trusted proxies' PROXY headers (see the module's documentation). Its address is the
/// client's, as far as the connection tells.
pub(crate) struct Listener {
    /// Where connections come in.
    tcp: TcpListener,
    /// Whose PROXY headers are read.
    trusted: Arc<TrustedProxies>,
    /// Connections from trusted proxies whose header is being read.
    handshakes: FuturesUnordered<BoxFuture<'static, Option<(TcpStream, SocketAddr)>>>,
}

impl Listener {
    /// Accepts on `tcp`, reading the PROXY headers of connections from `trusted`.
    pub(crate) fn new(tcp: TcpListener, trusted: Arc<TrustedProxies>) -> Listener {
        Listener {
            tcp,
            trusted,
            handshakes: FuturesUnordered::new(),
        }
    }
}

impl axum::serve::Listener for Listener {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        // Cancel-safe, as axum needs: a handshake under way stays in the set, and
        // `TcpListener`'s accept loses nothing when dropped.
        loop {
            tokio::select! {
                Some(done) = self.handshakes.next(), if !self.handshakes.is_empty() => {
                    if let Some(connection) = done {
                        return connection;
                    }
                }
                (stream, peer) = axum::serve::Listener::accept(&mut self.tcp) => {
                    // The server often writes two small frames back to back (`ack` then
                    // `turn_played`); with Nagle's algorithm the second waits for the
                    // client's delayed ACK, some 40 ms on Linux.
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::warn!("cannot set TCP_NODELAY: {e}");
                    }
                    if !self.trusted.trusts(peer.ip()) {
                        return (stream, peer);
                    }
                    self.handshakes.push(Box::pin(handshake(stream, peer)));
                }
            }
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::serve::Listener as _;
    use tokio::io::AsyncWriteExt;

    fn trusted(ranges: &[&str]) -> TrustedProxies {
        let ranges: Vec<IpNet> = ranges.iter().map(|r| r.parse().unwrap()).collect();
        TrustedProxies::new(&ranges)
    }

    fn headers(lines: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in lines {
            headers.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// A PROXY v2 header with `command`, `family` and `body`, as HAProxy writes one.
    fn v2(command: u8, family: u8, body: &[u8]) -> Vec<u8> {
        let mut header = SIGNATURE.to_vec();
        header.push(0x20 | command);
        header.push(family);
        header.extend(u16::try_from(body.len()).unwrap().to_be_bytes());
        header.extend(body);
        header
    }

    #[test]
    fn the_client_is_the_right_most_address_that_is_not_a_trusted_proxy() {
        let proxies = trusted(&["10.0.0.0/8", "2001:db8:ffff::/48"]);
        let from = |lines: &[(&str, &str)]| proxies.client(ip("10.0.0.1"), &headers(lines));
        let xff = "x-forwarded-for";
        assert_eq!(from(&[]), ip("10.0.0.1"), "no header: the proxy's own");
        assert_eq!(from(&[(xff, "198.51.100.7")]), ip("198.51.100.7"));
        // The client wrote the left-most hop itself.
        assert_eq!(
            from(&[(xff, "203.0.113.9, 198.51.100.7, 10.0.0.2")]),
            ip("198.51.100.7")
        );
        assert_eq!(
            from(&[(xff, "203.0.113.9"), (xff, "198.51.100.7")]),
            ip("198.51.100.7")
        );
        assert_eq!(
            from(&[(xff, "10.1.1.1, 10.0.0.2")]),
            ip("10.1.1.1"),
            "all trusted"
        );
        assert_eq!(
            from(&[(xff, "198.51.100.7, garbage, 10.0.0.2")]),
            ip("10.0.0.2")
        );
        assert_eq!(from(&[(xff, "198.51.100.7:4711")]), ip("198.51.100.7"));
        assert_eq!(from(&[(xff, "2001:db8::9")]), ip("2001:db8::9"));
        assert_eq!(from(&[(xff, "[2001:db8::9]:4711")]), ip("2001:db8::9"));
        assert_eq!(
            from(&[(xff, "::ffff:198.51.100.7")]),
            ip("198.51.100.7"),
            "IPv4 in IPv6 counts as IPv4"
        );
        let fwd = "forwarded";
        assert_eq!(
            from(&[(fwd, "for=192.0.2.60;proto=http;by=203.0.113.43")]),
            ip("192.0.2.60")
        );
        assert_eq!(
            from(&[(fwd, r#"for=192.0.2.43, For="[2001:db8:cafe::17]:4711""#)]),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(
            from(&[(fwd, "for=192.0.2.43:80, for=10.0.0.2")]),
            ip("192.0.2.43")
        );
        assert_eq!(from(&[(fwd, "for=unknown")]), ip("10.0.0.1"));
        assert_eq!(
            from(&[(fwd, "for=192.0.2.60"), (xff, "198.51.100.7")]),
            ip("198.51.100.7"),
            "X-Forwarded-For first"
        );
    }

    #[test]
    fn an_untrusted_peer_is_its_own_address_whatever_it_says() {
        let proxies = trusted(&["10.0.0.0/8"]);
        let spoofed = headers(&[
            ("x-forwarded-for", "198.51.100.7"),
            ("forwarded", "for=192.0.2.1"),
        ]);
        assert_eq!(proxies.client(ip("192.0.2.9"), &spoofed), ip("192.0.2.9"));
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.1"), &spoofed),
            ip("10.0.0.1")
        );
        assert!(proxies.trusts(ip("::ffff:10.2.3.4")));
    }

    #[test]
    fn proxy_v2_headers_read() {
        let v4 = v2(
            1,
            0x11,
            &[198, 51, 100, 7, 10, 0, 0, 5, 0xc3, 0x50, 0x1f, 0x90],
        );
        assert_eq!(header_length(&v4[..FIXED].try_into().unwrap()), Some(28));
        assert_eq!(
            parse(&v4),
            Ok(Header::Proxied("198.51.100.7:50000".parse().unwrap()))
        );
        let mut body = Vec::new();
        body.extend("2001:db8::7".parse::<Ipv6Addr>().unwrap().octets());
        body.extend(Ipv6Addr::LOCALHOST.octets());
        body.extend([0x04, 0xd2, 0x1f, 0x90]);
        // A TLV after the addresses (PP2_TYPE_UNIQUE_ID) is passed over.
        body.extend([0x05, 0x00, 0x02, 0xab, 0xcd]);
        assert_eq!(
            parse(&v2(1, 0x21, &body)),
            Ok(Header::Proxied("[2001:db8::7]:1234".parse().unwrap()))
        );
        assert_eq!(parse(&v2(0, 0x00, &[])), Ok(Header::Local));
        assert_eq!(
            parse(&v2(1, 0x31, &[0; 216])),
            Ok(Header::Unknown),
            "AF_UNIX"
        );
        assert_eq!(
            parse(&v2(1, 0x11, &[198, 51, 100, 7])),
            Err(BadHeader::Short)
        );
        assert_eq!(parse(&v2(2, 0x11, &[0; 12])), Err(BadHeader::Command(2)));
        let mut v1 = v2(1, 0x11, &[0; 12]);
        v1[12] = 0x11;
        assert_eq!(parse(&v1), Err(BadHeader::Version(1)));
        let http = *b"GET / HTTP/1.1\r\n";
        assert_eq!(header_length(&http), None);
    }

    /// Accepts one connection from `trusted` proxies that sends `bytes`; answers the
    /// address it is counted from and what is left to read of it.
    async fn accept_after(trusted: &[&str], bytes: Vec<u8>) -> (SocketAddr, Vec<u8>) {
        let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = tcp.local_addr().unwrap();
        let mut listener = Listener::new(tcp, Arc::new(self::trusted(trusted)));
        let client = tokio::spawn(async move {
            let mut client = TcpStream::connect(addr).await.unwrap();
            // In two writes, as a slow proxy might: the listener waits for the whole
            // header.
            let (first, rest) = bytes.split_at(5);
            client.write_all(first).await.unwrap();
            tokio::time::sleep(Duration::from_millis(20)).await;
            client.write_all(rest).await.unwrap();
            client.shutdown().await.unwrap();
            client
        });
        let (mut accepted, from) = listener.accept().await;
        let _client = client.await.unwrap();
        assert!(accepted.nodelay().unwrap());
        let mut left = Vec::new();
        accepted.read_to_end(&mut left).await.unwrap();
        (from, left)
    }

    #[tokio::test]
    async fn a_trusted_proxy_s_header_names_the_client_and_is_consumed() {
        let mut bytes = v2(
            1,
            0x11,
            &[198, 51, 100, 7, 127, 0, 0, 1, 0xc3, 0x50, 0x1f, 0x90],
        );
        bytes.extend(b"GET / HTTP/1.1\r\n\r\n");
        let (from, left) = accept_after(&["127.0.0.0/8"], bytes.clone()).await;
        assert_eq!(from, "198.51.100.7:50000".parse().unwrap());
        assert_eq!(left, b"GET / HTTP/1.1\r\n\r\n");

        // From anyone else, the same bytes are left for HTTP to refuse.
        let (from, left) = accept_after(&["10.0.0.0/8"], bytes.clone()).await;
        assert!(from.ip().is_loopback());
        assert_eq!(left, bytes);

        // A trusted proxy's plain request (a health check) is its own.
        let (from, left) =
            accept_after(&["127.0.0.0/8"], b"GET /health HTTP/1.1\r\n\r\n".to_vec()).await;
        assert!(from.ip().is_loopback());
        assert_eq!(left, b"GET /health HTTP/1.1\r\n\r\n");
    }
}
