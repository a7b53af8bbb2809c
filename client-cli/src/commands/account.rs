//! `punct login`, `logout`, `whoami` and `games`: the account the other commands act as.

use clap::Args;
use punct_cli::account::{self};

use crate::ServerArgs;

/// `punct login`.
#[derive(Args, Debug)]
pub(crate) struct LoginArgs {
    /// The server.
    #[command(flatten)]
    server: ServerArgs,
    /// The account's username; asked for without it.
    #[arg(long)]
    username: Option<String>,
    /// Register a new account instead of signing in to one.
    #[arg(long)]
    register: bool,
}

/// `punct login`: asks for what is missing, signs in (or registers), and saves the
/// session, never the password.
pub(crate) async fn login(args: LoginArgs) -> anyhow::Result<()> {
    let server = args.server.anonymous()?;
    let book = args
        .server
        .sessions()
        .ok_or_else(|| anyhow::anyhow!("no place for the session: give --config-dir"))?;
    let username = match args.username {
        Some(username) => username,
        None => account::prompt("username: ")?.trim().to_owned(),
    };
    let password = account::prompt_password("password: ")?;
    let session = if args.register {
        server.register(&username, &password).await?
    } else {
        server.sign_in(&username, &password).await?
    };
    let name = session.username.clone();
    book.save(&server.server().to_string(), session)?;
    println!("signed in as {name}");
    Ok(())
}

/// `punct logout`: signs the saved session out on the server, then forgets it.
pub(crate) async fn logout(args: ServerArgs) -> anyhow::Result<()> {
    let server = args.anonymous()?;
    let key = server.server().to_string();
    let Some(book) = args.sessions() else {
        println!("not signed in");
        return Ok(());
    };
    let Some(session) = book.find(&key)? else {
        println!("not signed in");
        return Ok(());
    };
    match server.with_session(&session.token).sign_out().await {
        // Ended already: there is nothing left to sign out.
        Ok(()) | Err(punct_client::Error::Refused { status: 401, .. }) => {}
        // Kept, so that signing out can be tried again.
        Err(e) => return Err(e.into()),
    }
    book.forget(&key)?;
    println!("signed out of {key}");
    Ok(())
}

/// `punct whoami`: the username the saved session is signed in to, as the server says.
pub(crate) async fn whoami(args: ServerArgs) -> anyhow::Result<()> {
    let (server, account) = args.client()?;
    if account.is_none() {
        println!("not signed in");
        return Ok(());
    }
    match server.signed_in().await {
        Ok(me) => println!("{}", me.username),
        Err(punct_client::Error::Refused { status: 401, .. }) => {
            eprintln!("punct: the saved session has ended; punct login signs in again");
            println!("not signed in");
        }
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

/// `punct games`.
pub(crate) async fn games(args: ServerArgs) -> anyhow::Result<()> {
    let (server, account) = args.client()?;
    if account.is_none() {
        anyhow::bail!("not signed in: punct login signs in");
    }
    let games = match server.my_games().await {
        Err(punct_client::Error::Refused { status: 401, .. }) => {
            anyhow::bail!("the saved session has ended; punct login signs in again")
        }
        answer => answer?,
    };
    for line in punct_cli::games::lines(&games) {
        println!("{line}");
    }
    Ok(())
}
