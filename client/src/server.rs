//! Where a server is: its base URL, read from what a person types.

use std::fmt;
use std::str::FromStr;

use url::Url;

/// A server's base URL: `http://` or `https://`, a host, maybe a port and a path prefix
/// (a server behind a proxy may live under one). Reads `http://host:port`,
/// `https://games.example.org`, `ws://…` and `wss://…` (taken for the same server) and a
/// bare `host:port` (plain HTTP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Server {
    /// The base URL, its path ending in `/`.
    base: Url,
}

impl FromStr for Server {
    type Err = String;

    fn from_str(text: &str) -> Result<Server, String> {
        let text = text.trim();
        let with_scheme = if text.contains("://") {
            text.to_owned()
        } else {
            format!("http://{text}")
        };
        let mut base =
            Url::parse(&with_scheme).map_err(|e| format!("'{text}' is not a server URL: {e}"))?;
        let scheme = match base.scheme() {
            "http" | "ws" => "http",
            "https" | "wss" => "https",
            other => {
                return Err(format!(
                    "'{text}': the server URL must start with http:// or https://, not {other}://"
                ));
            }
        };
        if scheme == "https" && !cfg!(feature = "tls") {
            return Err(format!(
                "'{text}': this program was built without TLS; use http://"
            ));
        }
        if base.host_str().is_none_or(str::is_empty) {
            return Err(format!("'{text}': no host in the server URL"));
        }
        // Changing between special schemes keeps the host, port and path.
        base.set_scheme(scheme)
            .map_err(|()| format!("'{text}': cannot use {scheme}"))?;
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        base.set_query(None);
        base.set_fragment(None);
        Ok(Server { base })
    }
}

impl fmt::Display for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.base.as_str().trim_end_matches('/'))
    }
}

impl Server {
    /// The URL of `path` (such as `api/rooms`) on this server.
    pub fn url(&self, path: &str) -> Url {
        self.base
            .join(path.trim_start_matches('/'))
            .expect("a relative path joins a base URL")
    }

    /// The WebSocket endpoint: `ws://…/ws`, or `wss://…/ws` for an HTTPS server.
    pub fn websocket(&self) -> Url {
        let mut url = self.url("ws");
        let scheme = if self.is_tls() { "wss" } else { "ws" };
        url.set_scheme(scheme)
            .expect("http and ws URLs have the same parts");
        url
    }

    /// Whether the server is reached over TLS.
    pub fn is_tls(&self) -> bool {
        self.base.scheme() == "https"
    }

    /// The host name (or address) and port to connect to.
    pub(crate) fn authority(&self) -> (&str, u16) {
        let host = self.base.host_str().expect("checked when parsed");
        let port = self
            .base
            .port_or_known_default()
            .expect("http and https have default ports");
        (host.trim_start_matches('[').trim_end_matches(']'), port)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(text: &str) -> Server {
        text.parse().unwrap()
    }

    #[test]
    fn urls_read_as_a_base_and_its_websocket() {
        let local = server("http://127.0.0.1:8080/");
        assert_eq!(local.to_string(), "http://127.0.0.1:8080");
        assert_eq!(local.websocket().as_str(), "ws://127.0.0.1:8080/ws");
        assert_eq!(
            local.url("/api/rooms").as_str(),
            "http://127.0.0.1:8080/api/rooms"
        );
        assert_eq!(local.authority(), ("127.0.0.1", 8080));
        assert_eq!(server("localhost:9"), server("http://localhost:9"));
        assert_eq!(server("ws://example.org"), server("http://example.org/"));
        // Behind a proxy, under a path.
        let behind = server("https://games.example.org/punct");
        assert_eq!(
            behind.websocket().as_str(),
            "wss://games.example.org/punct/ws"
        );
        assert_eq!(
            behind.url("api/rooms").as_str(),
            "https://games.example.org/punct/api/rooms"
        );
        assert_eq!(behind.authority(), ("games.example.org", 443));
        assert!(behind.is_tls());
        assert_eq!(
            server("wss://example.org:8443"),
            server("https://example.org:8443")
        );
        assert_eq!(server("http://[::1]:8080").authority(), ("::1", 8080));
    }

    #[test]
    fn other_urls_are_refused_with_a_reason() {
        for (text, reason) in [
            ("ftp://example.org", "http:// or https://"),
            ("http://", "not a server URL"),
            ("http://exa mple.org", "not a server URL"),
        ] {
            let refused = text.parse::<Server>().unwrap_err();
            assert!(refused.contains(reason), "{text}: {refused}");
        }
    }
}
