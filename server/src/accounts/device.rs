//! The device a `User-Agent` names, as an account's list of sessions shows it.

/// The device a `User-Agent` names, for people: the browser (or program) and the
/// system, as far as they can be told (`Firefox on Linux`).
pub(crate) fn device(user_agent: Option<&str>) -> String {
    let Some(agent) = user_agent.filter(|agent| !agent.trim().is_empty()) else {
        return "an unknown device".to_owned();
    };
    // Order matters: Edge and Opera say Chrome, Chrome says Safari, Android says Linux.
    let browsers = [
        ("Edg/", "Edge"),
        ("OPR/", "Opera"),
        ("Firefox/", "Firefox"),
        ("Chrome/", "Chrome"),
        ("Safari/", "Safari"),
    ];
    let systems = [
        ("Android", "Android"),
        ("iPhone", "iOS"),
        ("iPad", "iPadOS"),
        ("CrOS", "ChromeOS"),
        ("Windows", "Windows"),
        ("Mac OS X", "macOS"),
        ("Linux", "Linux"),
    ];
    let find = |known: &[(&str, &'static str)]| {
        known
            .iter()
            .find(|(mark, _)| agent.contains(mark))
            .map(|&(_, name)| name)
    };
    // A program names itself first: `punct/0.9`, `curl/8.5`.
    let program = || agent.split(['/', ' ']).next().unwrap_or(agent).to_owned();
    let browser = find(&browsers).map_or_else(program, str::to_owned);
    match find(&systems) {
        Some(system) => format!("{browser} on {system}"),
        None => browser,
    }
}
