//! `punct tournaments` and `punct tournament …`: list, create, show, join, withdraw, and
//! play a tournament's games with the computer.

use std::collections::HashSet;
use std::io::{self};
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use clap::{Args, Subcommand};
use punct_cli::{bot as online_bot, lobby, script, tournament, tui};
use punct_client::Client;
use punct_engine::Engine;
use punct_protocol::{CreateTournament, ErrorCode, TimeControl, TournamentFormat};
use punct_rules::Variant;

use crate::{BotArgs, ServerArgs, format_parser, read_script, variant_parser};

/// `punct tournament …`: one tournament, by its id (from punct tournaments).
#[derive(Subcommand, Debug)]
pub(crate) enum TournamentCommand {
    /// Create a tournament (signed in; a server may let only its moderators), and print
    /// its id and settings.
    Create(TournamentCreateArgs),
    /// Print the tournament: its settings, standings, and every round's games with their
    /// rooms and results.
    Show(TournamentArgs),
    /// Enter the tournament with the account signed in to (punct login), before it
    /// starts.
    Join(TournamentArgs),
    /// Withdraw from the tournament: before the start the place is free again; after
    /// it, you are paired no more and a game under way is lost.
    Withdraw(TournamentArgs),
    /// Wait for your next game in the tournament (signed in), then play it in the
    /// interactive room view, or with --script as punct play --script does.
    Play(TournamentPlayArgs),
}

/// Which tournament, on which server.
#[derive(Args, Debug)]
pub(crate) struct TournamentArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The tournament's id.
    id: String,
}

/// `punct tournament create`: what `POST /api/tournaments` takes, as flags.
#[derive(Args, Debug)]
pub(crate) struct TournamentCreateArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// Its name (1 to 60 characters).
    #[arg(long)]
    name: String,
    /// How players are paired: a Swiss (with --rounds), an arena (with --lasts), or a
    /// single or double round robin.
    #[arg(long, value_parser = format_parser())]
    format: TournamentFormat,
    /// The variant of its games.
    #[arg(long, ignore_case = true, value_parser = variant_parser(), default_value = "standard")]
    variant: Variant,
    /// The time control of its games, as BASE+INC (such as 5m+2s, or 300+2 in seconds), or
    /// days per move (1d, 2d, 3d, 5d, 7d or 14d: by correspondence, every game of a round
    /// robin at once); none without it (not for an arena).
    #[arg(long, value_name = "BASE+INC|DAYSd", value_parser = lobby::parse_time_control)]
    clock: Option<TimeControl>,
    /// Its games change the players' ratings.
    #[arg(long)]
    rated: bool,
    /// How long from now it starts (such as 10m, or 1h30m).
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = humantime::parse_duration)]
    starts_in: Duration,
    /// An arena: how long it lasts from its start (such as 1h).
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    lasts: Option<Duration>,
    /// A Swiss: how many rounds (1 to 20).
    #[arg(long)]
    rounds: Option<u32>,
    /// The fewest players it starts with; fewer at the start cancel it.
    #[arg(long, default_value_t = 2)]
    min_players: u32,
    /// The most players who may join.
    #[arg(long, default_value_t = 64)]
    max_players: u32,
}

impl TournamentCreateArgs {
    /// The request, for a tournament starting `starts_in` after `now` (milliseconds since
    /// the Unix epoch).
    fn request(&self, now: i64) -> CreateTournament {
        let millis = |d: Duration| i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
        let starts_at = now.saturating_add(millis(self.starts_in));
        CreateTournament {
            name: self.name.clone(),
            format: self.format,
            variant: self.variant,
            clock: self.clock,
            rated: self.rated,
            starts_at,
            ends_at: self.lasts.map(|d| starts_at.saturating_add(millis(d))),
            rounds: self.rounds,
            min_players: self.min_players,
            max_players: self.max_players,
        }
    }
}

/// `punct tournament play`.
#[derive(Args, Debug)]
pub(crate) struct TournamentPlayArgs {
    /// The tournament.
    #[command(flatten)]
    tournament: TournamentArgs,
    /// Play the turns of FILE (`-`: standard input) and print events as JSON lines,
    /// instead of the interactive app.
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
}

/// `punct bot --tournament`: enters the tournament (unless entered already), then plays
/// each game it is paired in as it comes, printing each game's seat line and events,
/// until the tournament is over or the account is no longer in it.
pub(crate) async fn tournament_bot(
    server: &Client,
    id: &str,
    me: &str,
    args: &BotArgs,
) -> anyhow::Result<()> {
    match server.join_tournament(id).await {
        Ok(_) => {}
        // Entered before (a bot started again), or playing already: carry on.
        Err(punct_client::Error::Refused {
            code: Some(ErrorCode::AlreadyEntered | ErrorCode::TournamentStarted),
            ..
        }) => {}
        Err(e) => return Err(e.into()),
    }
    let mut played = HashSet::new();
    let per_turn = Duration::from_millis(args.ms_per_turn);
    while let Some(seat) = tournament::wait_for_game(server, id, me, &played).await? {
        script::print_line(&mut io::stdout().lock(), &script::seat_line(&seat))?;
        played.insert(seat.room.clone());
        let link = punct_client::connect(server.clone(), seat.entry());
        online_bot::run(
            link,
            Engine::for_game(args.level, &seat.room),
            per_turn,
            &mut io::stdout().lock(),
        )
        .await?;
    }
    let view = server.tournament(id).await?;
    script::print_line(
        &mut io::stdout().lock(),
        &serde_json::json!({"type": "tournament_over", "tournament": id, "state": view.summary.state}),
    )?;
    Ok(())
}

/// `punct tournaments`.
pub(crate) async fn tournaments(args: ServerArgs) -> anyhow::Result<()> {
    let (server, _) = args.client()?;
    for line in tournament::list_lines(&server.tournaments().await?) {
        println!("{line}");
    }
    Ok(())
}

/// `punct tournament …`.
pub(crate) async fn tournament(command: TournamentCommand) -> anyhow::Result<()> {
    match command {
        TournamentCommand::Create(args) => {
            let (server, _) = args.server.player()?;
            let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis();
            let request = args.request(i64::try_from(now)?);
            let view = server.create_tournament(&request).await?;
            println!("{}", view.summary.id);
            for line in tournament::show_lines(&view) {
                println!("{line}");
            }
        }
        TournamentCommand::Show(args) => {
            let (server, _) = args.server.client()?;
            for line in tournament::show_lines(&server.tournament(&args.id).await?) {
                println!("{line}");
            }
        }
        TournamentCommand::Join(args) => {
            let (server, me) = args.server.player()?;
            let view = server.join_tournament(&args.id).await?;
            println!(
                "{me} joined {} ({} players)",
                punct_cli::ui::plain(&view.summary.name),
                view.summary.players
            );
        }
        TournamentCommand::Withdraw(args) => {
            let (server, me) = args.server.player()?;
            let view = server.withdraw_from_tournament(&args.id).await?;
            println!(
                "{me} withdrew from {}",
                punct_cli::ui::plain(&view.summary.name)
            );
        }
        TournamentCommand::Play(args) => {
            let TournamentArgs { server, id } = &args.tournament;
            let (server, me) = server.player()?;
            if args.script.is_none() {
                eprintln!("waiting for your next game in tournament {id}…");
            }
            let Some(seat) = tournament::wait_for_game(&server, id, &me, &HashSet::new()).await?
            else {
                anyhow::bail!("no game to play: the tournament is over, or you are not in it");
            };
            let Some(path) = &args.script else {
                return tui::room(server, seat.entry(), None).await;
            };
            let steps = script::parse_script(&read_script(path)?)?;
            script::print_line(&mut io::stdout().lock(), &script::seat_line(&seat))?;
            script::play(&server, seat, None, &steps, &mut io::stdout().lock()).await?;
        }
    }
    Ok(())
}
