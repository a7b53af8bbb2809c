//! A TCP link between a server and what it connects to, which a test can cut and heal:
//! a relay on loopback that passes bytes both ways while the link is up. Cut, it passes
//! nothing and closes nothing, as a partition does: a peer's writes fill buffers, its
//! reads wait, and new connections are taken but go nowhere.
//!
//! The relay's own socket acknowledges what it holds, so TCP sees no loss: only the
//! peers' own time limits notice the cut.

use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// A link to one address, up at first. Dropped, it takes no more connections (those
/// open go on until either end closes them).
#[derive(Debug)]
pub struct Link {
    /// Where the link listens.
    addr: SocketAddr,
    /// Whether the link is up.
    up: watch::Sender<bool>,
    /// The task taking connections.
    task: tokio::task::JoinHandle<()>,
}

impl Link {
    /// A link to `target`, listening on a free loopback port.
    pub async fn to(target: SocketAddr) -> Link {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (up, watching) = watch::channel(true);
        let task = tokio::spawn(async move {
            while let Ok((near, _)) = listener.accept().await {
                let watching = watching.clone();
                tokio::spawn(async move {
                    let mut up = watching.clone();
                    let _ = up.wait_for(|&up| up).await;
                    let Ok(far) = TcpStream::connect(target).await else {
                        return;
                    };
                    let ((near_in, near_out), (far_in, far_out)) =
                        (near.into_split(), far.into_split());
                    tokio::spawn(pump(near_in, far_out, watching.clone()));
                    tokio::spawn(pump(far_in, near_out, watching));
                });
            }
        });
        Link { addr, up, task }
    }

    /// Where the link listens: connect here instead of to the target.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Passes nothing more, either way, until [`Link::heal`].
    pub fn cut(&self) {
        self.up.send_replace(false);
    }

    /// Passes bytes again, those held during the cut first.
    pub fn heal(&self) {
        self.up.send_replace(true);
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies `from` to `to` while the link is up; waits while it is cut.
async fn pump(from: OwnedReadHalf, to: OwnedWriteHalf, mut up: watch::Receiver<bool>) {
    let mut buffer = vec![0; 16 * 1024];
    loop {
        if up.wait_for(|&up| up).await.is_err() || from.readable().await.is_err() {
            return;
        }
        let read = match from.try_read(&mut buffer) {
            Ok(0) => return,
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(_) => return,
        };
        // Read just as the link was cut: held until it heals.
        if up.wait_for(|&up| up).await.is_err() || !write_all(&to, &buffer[..read]).await {
            return;
        }
    }
}

/// Writes all of `bytes` to `to`; false if the connection broke.
async fn write_all(to: &OwnedWriteHalf, mut bytes: &[u8]) -> bool {
    while !bytes.is_empty() {
        if to.writable().await.is_err() {
            return false;
        }
        match to.try_write(bytes) {
            Ok(written) => bytes = &bytes[written..],
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return false,
        }
    }
    true
}
