//! Mail to correspondence players: a message for each move that waits for them (or at
//! most one digest a day), one when a quarter of a move's days is left to a player who
//! has not moved (queued by the registry's sweep), and one when their game ends, through
//! an SMTP server (lettre), each in its player's language;
//! and the links an account's owner asks for (to confirm an address, to set a new
//! password).
//!
//! A mail is queued in the database's outbox by the write that causes it, in its
//! transaction, so a mail is never lost with a turn that was stored, nor sent for one
//! that was not. One task per server sends: it claims what is due, sends it over one
//! SMTP session (`smtp`), and marks each done. A
//! failure is tried again later, waiting longer each time; a mail server that refuses
//! a message for good, or many tries that failed, give it up. The room only wakes the
//! task: a slow, refusing or hanging mail server never costs a turn or its time.
//!
//! A claim lasts [`CLAIM`]: in a cluster, each mail is sent by the one node that claimed
//! it. A server that stops gives back what it claimed and did not send; one that dies
//! holding a claim leaves it to the other nodes, which give it back once they see the
//! node dead (or it lapses). A mail sent but not marked (the process died
//! between the two) is sent again, with the same `Message-ID`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, UNIX_EPOCH};

use lettre::Message;
use lettre::message::Mailbox;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use punct_protocol::{MyGame, NotifyMode};
use punct_rules::Outcome;
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

use crate::clock::now;
use crate::config::Config;
use crate::i18n::Lang;
use crate::metrics::MailMetrics;
use crate::secret::{self, hash_token, uuid_v7};
use crate::store::{Account, LinkPurpose, Notice, Outbound, Store, StoredRecord};

mod smtp;

use smtp::{Failure, Server, Session};

/// The longest a mail server may take over one message.
const SEND_TIMEOUT: Duration = Duration::from_secs(10);

/// A digest goes at most this often.
const DIGEST_EVERY: Duration = Duration::from_secs(24 * 3600);

/// How often the outbox is looked at without being woken: for mail queued by other
/// nodes, and mail due again after a failure.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// Most mails claimed at once. (Batches follow each other on the same SMTP session.)
const BATCH: usize = 16;

/// How long a claim holds: longer than a batch can take, each message within
/// [`SEND_TIMEOUT`], so that no other node claims a mail while it is being sent.
const CLAIM: Duration = Duration::from_secs(300);
const _: () = assert!(CLAIM.as_secs() > BATCH as u64 * SEND_TIMEOUT.as_secs());

/// The wait after a mail's first failure; it doubles with each failure, up to
/// [`LAST_RETRY`].
const FIRST_RETRY: Duration = Duration::from_secs(1);

/// The longest wait between two tries.
const LAST_RETRY: Duration = Duration::from_secs(3600);

/// Tries before a mail is given up: some six hours of a mail server that fails.
const TRIES: u32 = 18;

/// Where rooms say that mail was queued; does nothing on a server without `--smtp-url`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Mailer {
    /// The sending task's, with `--smtp-url`.
    shared: Option<Arc<Shared>>,
}

/// What the mailer and its task share.
#[derive(Debug)]
struct Shared {
    /// Wakes the task: mail was queued here.
    wake: Arc<Notify>,
    /// Turned true to stop the task.
    stop: watch::Sender<bool>,
    /// The task, awaited once it is told to stop.
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Mailer {
    /// The mailer of node `node` (its tag) with `config`: with `--smtp-url`, a task that
    /// sends what the outbox holds and the daily digests, and keeps `metrics`; none
    /// without it.
    pub(crate) fn start(config: &Config, store: Store, metrics: MailMetrics, node: u32) -> Mailer {
        let Some(url) = &config.smtp_url else {
            return Mailer::default();
        };
        let server = match Server::parse(url) {
            Ok(server) => server,
            Err(error) => {
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
        let public_url = config
            .public_url
            .clone()
            .unwrap_or_else(|| "http://localhost:8080".to_owned())
            .trim_end_matches('/')
            .to_owned();
        let wake = Arc::new(Notify::new());
        let (stop, stopped) = watch::channel(false);
        let postman = Postman {
            session: Session::new(server, SEND_TIMEOUT),
            from,
            domain: host(&public_url).to_owned(),
            public_url,
            store,
            wake: Arc::clone(&wake),
            metrics,
        };
        let task = tokio::spawn(postman.run(stopped, config.digest_check, node));
        Mailer {
            shared: Some(Arc::new(Shared {
                wake,
                stop,
                task: Mutex::new(Some(task)),
            })),
        }
    }

    /// Whether mail is sent: rooms queue none otherwise.
    pub(crate) fn enabled(&self) -> bool {
        self.shared.is_some()
    }

    /// Mail was queued and committed here: sends it now rather than at the next look.
    pub(crate) fn wake(&self) {
        if let Some(shared) = &self.shared {
            shared.wake.notify_one();
        }
    }

    /// Stops sending: the task gives back the mail it claimed and has not sent, for the
    /// next start or another node. Answers once it has.
    pub(crate) async fn stop(&self) {
        let Some(shared) = &self.shared else {
            return;
        };
        shared.stop.send_replace(true);
        let task = shared
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(task) = task
            && let Err(e) = task.await
        {
            tracing::error!("the mail task failed: {e}");
        }
    }
}

/// The host of `url` (`https://punct.example.org:8443/x` gives `punct.example.org`), the
/// right-hand side of every `Message-ID`.
fn host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or(rest);
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(host, _)| host);
    if host.is_empty() { "localhost" } else { host }
}

/// The language of a player who chose `code` (English when they chose none).
fn reading(code: Option<&str>) -> Lang {
    code.and_then(Lang::parse).unwrap_or_default()
}

/// The wait before the next try of a mail that failed `attempts` times.
fn retry_after(attempts: u32) -> Duration {
    FIRST_RETRY
        .saturating_mul(1 << attempts.saturating_sub(1).min(16))
        .min(LAST_RETRY)
}

/// The task that sends.
struct Postman {
    /// The mail server, spoken to over one session while there is mail to send.
    session: Session,
    from: Mailbox,
    /// Links in mail start so.
    public_url: String,
    /// Where `Message-ID`s are made: the host of the public URL.
    domain: String,
    store: Store,
    /// Woken when mail was queued here.
    wake: Arc<Notify>,
    /// The backlog and the mail given up, for `/metrics`.
    metrics: MailMetrics,
}

/// What the task does next.
enum Work {
    /// Send the mail due.
    Outbox,
    /// Send the digests due.
    Digests,
}

impl Postman {
    /// Sends what is due whenever woken, every [`LOOK_EVERY`], and every `digest_check`
    /// the digests, until told to stop (or every [`Mailer`] is gone).
    async fn run(mut self, mut stop: watch::Receiver<bool>, digest_check: Duration, node: u32) {
        let mut look = tokio::time::interval(LOOK_EVERY);
        let mut digests = tokio::time::interval(digest_check);
        for timer in [&mut look, &mut digests] {
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        }
        if let Err(e) = self.store.release_dead_claims().await {
            let error: &dyn std::error::Error = &e;
            tracing::warn!(error, "giving back claims of an earlier run: they lapse");
        }
        // Named after the node, so that the others give it back if the node dies.
        let claim = format!("{node}-{}", uuid_v7());
        loop {
            let work = tokio::select! {
                _ = stop.wait_for(|&stopping| stopping) => break,
                () = self.wake.notified() => Work::Outbox,
                _ = look.tick() => Work::Outbox,
                _ = digests.tick() => Work::Digests,
            };
            let done = async {
                if let Work::Digests = work {
                    self.digests().await;
                }
                self.outbox(&claim).await;
            };
            tokio::select! {
                () = done => {}
                // A message cut off here may have been sent: it goes again, with the
                // same Message-ID.
                _ = stop.wait_for(|&stopping| stopping) => break,
            }
        }
        if let Err(e) = self.store.release_mail(&claim, now()).await {
            let error: &dyn std::error::Error = &e;
            tracing::warn!(
                error,
                "giving back claimed mail: it waits for the claim to lapse"
            );
        }
    }

    /// Sends the mail due, then counts what is left for `/metrics`.
    async fn outbox(&mut self, claim: &str) {
        self.send_due(claim).await;
        self.session.close().await;
        match self.store.mail_backlog().await {
            Ok((queued, oldest)) => self.metrics.backlog(queued, oldest),
            Err(e) => {
                let error: &dyn std::error::Error = &e;
                tracing::warn!(error, "counting the outbox: /metrics shows the last count");
            }
        }
    }

    /// Sends the mail due, a batch at a time, until none is or one fails.
    async fn send_due(&mut self, claim: &str) {
        loop {
            let batch = match self.store.claim_mail(claim, CLAIM, BATCH).await {
                Ok(batch) => batch,
                Err(e) => {
                    let error: &dyn std::error::Error = &e;
                    tracing::error!(error, "claiming mail from the outbox");
                    return;
                }
            };
            let full = batch.len() == BATCH;
            if !self.batch(claim, batch).await || !full {
                return;
            }
        }
    }

    /// Sends `batch`, marking each mail done; false if one failed and could be tried
    /// again: then the rest waits as long (the mail server is likely down for all).
    async fn batch(&mut self, claim: &str, batch: Vec<Outbound>) -> bool {
        for mail in batch {
            let outcome = match self.deliver(&mail).await {
                Ok(()) => self.store.mail_done(&mail.id, None).await,
                Err(failure) if failure.permanent || mail.attempts + 1 >= TRIES => {
                    tracing::warn!(error = failure.error, "mail given up");
                    self.metrics.given_up();
                    self.store.mail_done(&mail.id, Some(failure.error)).await
                }
                Err(failure) => {
                    let wait = retry_after(mail.attempts + 1);
                    tracing::warn!(
                        error = failure.error,
                        retry_in_s = wait.as_secs(),
                        "mail not sent"
                    );
                    let due =
                        now().saturating_add(i64::try_from(wait.as_millis()).unwrap_or(i64::MAX));
                    let marked = self.store.mail_failed(&mail.id, failure.error, due).await;
                    let released = self.store.release_mail(claim, due).await;
                    if let Err(e) = marked.and(released) {
                        let error: &dyn std::error::Error = &e;
                        tracing::error!(error, "marking mail failed: its claim lapses");
                    }
                    return false;
                }
            };
            if let Err(e) = outcome {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "marking mail done: it may be sent again");
            }
        }
        true
    }

    /// Writes and sends `mail`, if its player still takes it (a player who turned mail
    /// off since it was queued is sent nothing).
    async fn deliver(&mut self, mail: &Outbound) -> Result<(), Failure> {
        let settings = &mail.settings;
        let lang = reading(mail.language.as_deref());
        if let Notice::Link { purpose, email } = &mail.notice {
            // Asked for by the account's owner: sent whatever the mail settings, to the
            // address it names, with no unsubscribe link. The secret is made now, and
            // only its hash stored.
            let secret = secret::token();
            match self.store.arm_link(&mail.id, hash_token(&secret)).await {
                Ok(true) => {}
                // Used, expired, or its account deleted: nothing to send.
                Ok(false) => return Ok(()),
                Err(e) => {
                    return Err(Failure {
                        error: format!("storing the link: {e}"),
                        permanent: false,
                    });
                }
            }
            let (subject, body) = self.link(lang, &mail.account.username, *purpose, &secret);
            return self.send(lang, &mail.id, email, &subject, body, None).await;
        }
        let wanted = match mail.notice {
            Notice::YourMove { .. } => settings.mode == NotifyMode::Each,
            Notice::GameOver | Notice::TimeRunningOut { .. } => settings.mode != NotifyMode::Off,
            Notice::Digest => settings.mode == NotifyMode::Digest,
            Notice::Link { .. } => false,
        };
        let Some(email) = settings.email.as_deref().filter(|_| wanted) else {
            return Ok(());
        };
        let (subject, body) = match &mail.notice {
            Notice::YourMove {
                opponent,
                turn,
                number,
                days,
            } => self.your_move(lang, &mail.room, opponent, turn, *number, *days),
            Notice::GameOver => self.game_over(lang, mail).await?,
            Notice::TimeRunningOut { number, deadline } => {
                match self
                    .time_running_out(lang, mail, *number, *deadline)
                    .await?
                {
                    Some(written) => written,
                    None => return Ok(()),
                }
            }
            Notice::Digest => match self.digest(lang, mail).await? {
                Some(written) => written,
                None => return Ok(()),
            },
            Notice::Link { .. } => return Ok(()),
        };
        self.send(
            lang,
            &mail.id,
            email,
            &subject,
            body,
            settings.unsubscribe.as_deref(),
        )
        .await
    }

    /// The subject and body of a mail to `username`, reading `lang`, with a link for
    /// `purpose`.
    fn link(
        &self,
        lang: Lang,
        username: &str,
        purpose: LinkPurpose,
        secret: &str,
    ) -> (String, String) {
        let public = &self.public_url;
        let (kind, link) = match purpose {
            LinkPurpose::Confirm => ("confirm", format!("{public}/account?confirm={secret}")),
            LinkPurpose::Reset => ("reset", format!("{public}/account?reset={secret}")),
        };
        let body = lang.format(
            &format!("mail.{kind}.body"),
            &[("username", username), ("link", &link)],
        );
        (lang.text(&format!("mail.{kind}.subject")).to_owned(), body)
    }

    /// The subject and body of a mail, reading `lang`, that `opponent` played `turn`
    /// (number `number`) in `room`, and the player has `days` for the reply.
    fn your_move(
        &self,
        lang: Lang,
        room: &str,
        opponent: &str,
        turn: &str,
        number: usize,
        days: u8,
    ) -> (String, String) {
        let days = lang.plural("mail.days", days.into(), &[]);
        let body = lang.format(
            "mail.your-move.body",
            &[
                ("opponent", opponent),
                ("turn", turn),
                ("number", &number.to_string()),
                ("days", &days),
                ("link", &self.room_link(room)),
            ],
        );
        let subject = lang.format("mail.your-move.subject", &[("opponent", opponent)]);
        (subject, body)
    }

    /// The link to `room`'s page.
    fn room_link(&self, room: &str) -> String {
        format!("{}/room/{room}", self.public_url)
    }

    /// The record of `mail`'s game, and the seat of `mail`'s player in it.
    async fn game(&self, mail: &Outbound) -> Result<(StoredRecord, usize), Failure> {
        let record = match self.store.record(&mail.room).await {
            Ok(Some(record)) => record,
            Ok(None) => {
                return Err(Failure {
                    error: format!("room {} is gone", mail.room),
                    permanent: true,
                });
            }
            Err(e) => {
                return Err(Failure {
                    error: format!("reading the game: {e}"),
                    permanent: false,
                });
            }
        };
        let seat = record
            .players
            .iter()
            .position(|p| p.account_id() == Some(mail.account.id.as_str()));
        let Some(seat) = seat else {
            return Err(Failure {
                error: format!("room {}: no seat of the player", mail.room),
                permanent: true,
            });
        };
        Ok((record, seat))
    }

    /// The subject and body of a mail, reading `lang`, that `mail`'s game is over, read
    /// from its record.
    async fn game_over(&self, lang: Lang, mail: &Outbound) -> Result<(String, String), Failure> {
        let (record, seat) = self.game(mail).await?;
        let Some(outcome) = record.outcome else {
            return Err(Failure {
                error: format!("room {}: the game has not ended", mail.room),
                permanent: true,
            });
        };
        let opponent = record.players[1 - seat].view();
        let opponent = opponent
            .name
            .as_deref()
            .unwrap_or(lang.text("player.guest"));
        // The reason in the rules' words (`winner black (time)`), as the pages say it.
        let shown = outcome.to_string();
        let reason = shown
            .rsplit_once(" (")
            .map_or("", |(_, reason)| reason.trim_end_matches(')'));
        let reason = lang.text(&format!("reason.{reason}")).to_owned();
        let result = match outcome {
            Outcome::Win { winner, .. } if winner as usize == seat => "mail.result.won",
            Outcome::Win { .. } => "mail.result.lost",
            Outcome::Draw { .. } => "mail.result.draw",
        };
        let result = lang.format(result, &[("reason", &reason)]);
        let turns = lang.plural("mail.turns", record.turns.len() as u64, &[]);
        let body = lang.format(
            "mail.game-over.body",
            &[
                ("opponent", opponent),
                ("turns", &turns),
                ("result", &result),
                ("link", &self.room_link(&mail.room)),
            ],
        );
        let subject = lang.format("mail.game-over.subject", &[("opponent", opponent)]);
        Ok((subject, body))
    }

    /// The subject and body of a mail, reading `lang`, that the time for turn `number`
    /// of `mail`'s game runs out at `deadline`; none if the player has moved since, or
    /// the game is over.
    async fn time_running_out(
        &self,
        lang: Lang,
        mail: &Outbound,
        number: usize,
        deadline: i64,
    ) -> Result<Option<(String, String)>, Failure> {
        let (record, seat) = self.game(mail).await?;
        if record.outcome.is_some() || record.turns.len() + 1 != number {
            return Ok(None);
        }
        let opponent = record.players[1 - seat].view();
        let opponent = opponent
            .name
            .as_deref()
            .unwrap_or(lang.text("player.guest"));
        let deadline = UNIX_EPOCH + Duration::from_millis(u64::try_from(deadline).unwrap_or(0));
        let body = lang.format(
            "mail.time.body",
            &[
                ("number", &number.to_string()),
                ("opponent", opponent),
                (
                    "deadline",
                    &humantime::format_rfc3339_seconds(deadline).to_string(),
                ),
                ("link", &self.room_link(&mail.room)),
            ],
        );
        let subject = lang.format("mail.time.subject", &[("opponent", opponent)]);
        Ok(Some((subject, body)))
    }

    /// Queues the digests due: to players who had none for a day and whose move some
    /// game awaits. Each goes through the outbox, so one queued is sent even if this
    /// server dies before it could.
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
        for account in due {
            match self.waiting(&account, now).await {
                Ok(waiting) if waiting.is_empty() => continue,
                Ok(_) => {}
                Err(failure) => {
                    tracing::error!(error = failure.error, "reading games for a digest");
                    continue;
                }
            }
            // Marks the day's digest taken, for this node only, with the mail queued.
            if let Err(e) = self.store.queue_digest(&account.id, since, now).await {
                let error: &dyn std::error::Error = &e;
                tracing::error!(error, "queueing a digest");
            }
        }
    }

    /// The games of `account` that wait for its move at `now`.
    async fn waiting(&self, account: &Account, now: i64) -> Result<Vec<MyGame>, Failure> {
        let rows = self
            .store
            .games_of(&account.id)
            .await
            .map_err(|e| Failure {
                error: format!("reading the player's games: {e}"),
                permanent: false,
            })?;
        Ok(crate::views::my_games_of(account, &rows, now)
            .into_iter()
            .filter(|game| game.your_move)
            .collect())
    }

    /// The subject and body of `mail`'s digest, reading `lang`: the games that wait for
    /// the player's move now; none if none does (they moved since it was queued).
    async fn digest(
        &self,
        lang: Lang,
        mail: &Outbound,
    ) -> Result<Option<(String, String)>, Failure> {
        let waiting = self.waiting(&mail.account, now()).await?;
        if waiting.is_empty() {
            return Ok(None);
        }
        let mut body = lang.format("mail.digest.body", &[("username", &mail.account.username)]);
        for game in &waiting {
            let opponent = game.summary.players.get(game.color.opponent());
            let opponent = opponent
                .player
                .name
                .as_deref()
                .unwrap_or(lang.text("player.guest"));
            let link = self.room_link(&game.summary.room);
            body.push_str(&match game.time_left_ms {
                Some(ms) => lang.format(
                    "mail.digest.game.left",
                    &[
                        ("opponent", opponent),
                        ("hours", &(ms / 3_600_000).to_string()),
                        ("link", &link),
                    ],
                ),
                None => lang.format(
                    "mail.digest.game",
                    &[("opponent", opponent), ("link", &link)],
                ),
            });
        }
        let subject = lang.plural("mail.digest.subject", waiting.len() as u64, &[]);
        Ok(Some((subject, body)))
    }

    /// Sends one message, `Message-ID` `<id@domain>`, to `to`, with the link that turns
    /// mail off, said in `lang`.
    async fn send(
        &mut self,
        lang: Lang,
        id: &str,
        to: &str,
        subject: &str,
        mut body: String,
        unsubscribe: Option<&str>,
    ) -> Result<(), Failure> {
        let unsubscribe =
            unsubscribe.map(|secret| format!("{}/unsubscribe?token={secret}", self.public_url));
        if let Some(link) = &unsubscribe {
            body.push_str(&lang.format("mail.unsubscribe", &[("link", link)]));
        }
        let written = |e: &dyn std::fmt::Display| Failure {
            error: format!("writing mail: {e}"),
            permanent: true,
        };
        let to: Mailbox = to.parse().map_err(|e| written(&e))?;
        let mut message = Message::builder()
            .message_id(Some(format!("<{id}@{}>", self.domain)))
            .from(self.from.clone())
            .to(to)
            .subject(subject)
            .header(ContentType::TEXT_PLAIN);
        if let Some(link) = unsubscribe {
            // RFC 8058: mail programs offer a button that posts to the link, which
            // unsubscribes in one click; a plain GET of it (a link scanner's) does not.
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
        let message = message.body(body).map_err(|e| written(&e))?;
        self.session.send(&message).await?;
        tracing::info!(subject, "mail sent");
        Ok(())
    }
}

#[cfg(test)]
mod tests;
