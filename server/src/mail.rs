//! Mail to correspondence players: a message for each move that waits for them, or at
//! most one digest a day, through an SMTP server (lettre).
//!
//! Rooms hand a notice to a bounded queue and never wait on it; one task sends. A slow,
//! refusing or hanging mail server costs mail (logged), never a turn or its time. A move
//! whose player has the game open sends nothing: they see it.

use std::time::Duration;

use lettre::message::Mailbox;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::transport::smtp::Error as SmtpError;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use punct_protocol::NotifyMode;
use punct_rules::Turn;
use tokio::sync::mpsc;

use crate::clock::now;
use crate::config::Config;
use crate::store::{AccountId, DigestDue, Store};

/// Notices waiting to be mailed; more are dropped (and logged).
const QUEUE: usize = 1024;

/// The longest a mail server may take over one message.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// A digest goes at most this often.
const DIGEST_EVERY: Duration = Duration::from_secs(24 * 3600);

/// Where rooms hand their notices; does nothing on a server without `--smtp-url`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mailer {
    queue: Option<mpsc::Sender<YourMove>>,
}

/// A correspondence game waits for a player who does not have it open.
#[derive(Clone, Debug)]
pub(crate) struct YourMove {
    /// The player's account.
    pub(crate) account: AccountId,
    /// The room.
    pub(crate) room: String,
    /// Who played, as shown.
    pub(crate) opponent: String,
    /// What they played, and its number.
    pub(crate) turn: (Turn, usize),
    /// The days the player has for the reply.
    pub(crate) days: u8,
}

impl Mailer {
    /// The mailer of a server with `config`: with `--smtp-url`, a task that sends, fed by
    /// the queue, and that sends the daily digests; none without it.
    pub(crate) fn start(config: &Config, store: Store) -> Mailer {
        let Some(url) = &config.smtp_url else {
            return Mailer::default();
        };
        let transport = match transport(url) {
            Ok(transport) => transport,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "the SMTP URL does not read: no mail is sent");
                return Mailer::default();
            }
        };
        let from = config
            .mail_from
            .as_deref()
            .unwrap_or("PÜNCT <punct@localhost>");
        let from = from.parse().unwrap_or_else(|e| {
            tracing::error!(%from, "--mail-from is not a mailbox ({e}); punct@localhost sends");
            Mailbox::new(None, "punct@localhost".parse().expect("a valid address"))
        });
        let (queue, notices) = mpsc::channel(QUEUE);
        let postman = Postman {
            transport,
            from,
            public_url: config
                .public_url
                .clone()
                .unwrap_or_else(|| "http://localhost:8080".to_owned())
                .trim_end_matches('/')
                .to_owned(),
            store,
        };
        tokio::spawn(postman.run(notices, config.digest_check));
        Mailer { queue: Some(queue) }
    }

    /// Hands `notice` to the sender, without waiting.
    pub(crate) fn your_move(&self, notice: YourMove) {
        if let Some(queue) = &self.queue
            && let Err(e) = queue.try_send(notice)
        {
            tracing::warn!("mail queue: {e}; the notice is dropped");
        }
    }
}

/// The SMTP transport of `url`.
fn transport(url: &str) -> Result<AsyncSmtpTransport<Tokio1Executor>, SmtpError> {
    Ok(AsyncSmtpTransport::<Tokio1Executor>::from_url(url)?
        .timeout(Some(SEND_TIMEOUT))
        .build())
}

/// The task that sends.
struct Postman {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// Links in mail start so.
    public_url: String,
    store: Store,
}

impl Postman {
    /// Sends each notice, and every `digest_check` the digests due, until every
    /// [`Mailer`] is gone.
    async fn run(self, mut notices: mpsc::Receiver<YourMove>, digest_check: Duration) {
        let mut digests = tokio::time::interval(digest_check);
        digests.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                notice = notices.recv() => match notice {
                    Some(notice) => self.your_move(notice).await,
                    None => return,
                },
                _ = digests.tick() => self.digests().await,
            }
        }
    }

    /// Mails `notice` if its player takes a message for each move.
    async fn your_move(&self, notice: YourMove) {
        let settings = match self.store.mail_settings(&notice.account).await {
            Ok(Some(settings)) => settings,
            Ok(None) => return,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "reading mail settings: the notice is dropped");
                return;
            }
        };
        let Some(email) = settings.email.filter(|_| settings.mode == NotifyMode::Each) else {
            return;
        };
        let (turn, number) = notice.turn;
        let days = match notice.days {
            1 => "a day".to_owned(),
            days => format!("{days} days"),
        };
        let body = format!(
            "{opponent} played {turn} (turn {number}) in your correspondence game of \
             PÜNCT. It is your move: you have {days}.\n\n{public}/room/{room}\n",
            opponent = notice.opponent,
            public = self.public_url,
            room = notice.room,
        );
        let subject = format!("Your move against {}", notice.opponent);
        self.send(&email, &subject, body, settings.unsubscribe.as_deref())
            .await;
    }

    /// Mails the digests due: to players who had none for a day and whose move some
    /// game awaits.
    async fn digests(&self) {
        let now = now();
        let since = now - i64::try_from(DIGEST_EVERY.as_millis()).expect("a day fits");
        let due = match self.store.digests_due(since).await {
            Ok(due) => due,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "reading the digests due");
                return;
            }
        };
        for digest in due {
            self.digest(digest, since, now).await;
        }
    }

    /// Mails one player the games that wait for their move, if any do and no other node
    /// mailed them since `since`.
    async fn digest(&self, due: DigestDue, since: i64, now: i64) {
        let rows = match self.store.games_of(&due.account.id).await {
            Ok(rows) => rows,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "reading games for a digest");
                return;
            }
        };
        let waiting: Vec<_> = crate::views::my_games_of(&due.account, &rows, now)
            .into_iter()
            .filter(|game| game.your_move)
            .collect();
        if waiting.is_empty() {
            return;
        }
        match self.store.claim_digest(&due.account.id, since, now).await {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "claiming a digest");
                return;
            }
        }
        let mut body = format!(
            "{}, these games of PÜNCT wait for your move:\n\n",
            due.account.username
        );
        for game in &waiting {
            let opponent = game.summary.players.get(game.color.opponent());
            let opponent = opponent.player.name.as_deref().unwrap_or("a guest");
            let left = game
                .time_left_ms
                .map(|ms| format!(", {} h left", ms / 3_600_000))
                .unwrap_or_default();
            body.push_str(&format!(
                "- against {opponent}{left}: {}/room/{}\n",
                self.public_url, game.summary.room
            ));
        }
        let subject = match waiting.len() {
            1 => "A game waits for your move".to_owned(),
            n => format!("{n} games wait for your move"),
        };
        self.send(&due.email, &subject, body, due.unsubscribe.as_deref())
            .await;
    }

    /// Sends one message to `to`, with the link that turns mail off; failures are logged.
    async fn send(&self, to: &str, subject: &str, mut body: String, unsubscribe: Option<&str>) {
        let unsubscribe =
            unsubscribe.map(|secret| format!("{}/unsubscribe?token={secret}", self.public_url));
        if let Some(link) = &unsubscribe {
            body.push_str(&format!("\nNo more mail from PÜNCT: {link}\n"));
        }
        let to: Mailbox = match to.parse() {
            Ok(to) => to,
            Err(e) => {
                tracing::warn!("a stored address does not read ({e}); nothing is sent");
                return;
            }
        };
        let mut message = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN);
        if let Some(link) = unsubscribe {
            // RFC 8058: mail programs offer a button that unsubscribes in one click.
            message = message
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe"),
                    format!("<{link}>"),
                ))
                .raw_header(HeaderValue::new(
                    HeaderName::new_from_ascii_str("List-Unsubscribe-Post"),
                    "List-Unsubscribe=One-Click".to_owned(),
                ));
        }
        let message = match message.body(body) {
            Ok(message) => message,
            Err(e) => {
                tracing::error!("writing mail: {e}");
                return;
            }
        };
        match self.transport.send(message).await {
            Ok(_) => tracing::info!(subject, "mail sent"),
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::warn!(error, "mail not sent");
            }
        }
    }
}
