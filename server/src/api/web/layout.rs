//! The layout every page is put in: the head's shared lines, and the header with the
//! site's name, its navigation (`nav.html`) and the account's corner. A page's source
//! holds only its own parts ([`in_layout`] says which, and in what order).

/// What every page has around its own parts (see [`in_layout`]): the head's shared
/// lines, the header with the site's name, its navigation and the account's corner.
pub(super) const LAYOUT: &str = include_str!("../../../web/layout.html");

/// The site's navigation, the same in every page's header, where the layout writes
/// [`NAV_MARK`].
pub(super) const NAV: &str = include_str!("../../../web/nav.html");

/// Where the layout wants the site's navigation.
pub(super) const NAV_MARK: &str = "<!--site-nav-->";

/// Where the layout wants a page's `<title>`, the rest of its head, its `<body>` start
/// tag, what its header shows besides the site's name, and the rest of its body.
pub(super) const PAGE_MARKS: [&str; 5] = [
    "<!--page-title-->",
    "<!--page-head-->",
    "<!--page-body-->",
    "<!--page-header-->",
    "<!--page-main-->",
];

/// The layout's account corner, which a page whose `<header>` has [`NO_ACCOUNT`] goes
/// without.
pub(super) const ACCOUNT: &str = "\n  <div id=\"account\" class=\"account\"></div>";

/// The attribute of a page's `<header>` that leaves the account corner out: the analysis
/// board and the game against the computer work without the server, and the page for a
/// path the site has none for signs nobody in.
pub(super) const NO_ACCOUNT: &str = r#" data-layout="no-account""#;

/// Page `source` in the layout, with the site's navigation, the link to `path` (the
/// page's own) marked as the current page. A page's source is its own head (its
/// `<title>` first, then its modules) and body (its `<body>` start tag, then its
/// `<header>` holding what the header shows after the site's name, then the rest):
///
/// ```html
/// <head>
/// <title data-i18n="title.games">PÜNCT — finished games</title>
/// <script type="module" src="/assets/games.js"></script>
/// </head>
/// <body class="page-games">
/// <header><span data-i18n="page.games">finished games</span></header>
/// <main>…</main>
/// </body>
/// ```
pub(super) fn in_layout(source: &str, path: &str) -> String {
    /// `rest` before and after `mark`: each part runs to the next mark, as every page's
    /// source is written.
    fn cut<'a>(rest: &'a str, mark: &str) -> (&'a str, &'a str) {
        rest.split_once(mark)
            .unwrap_or_else(|| panic!("a page's source has {mark:?} in its place"))
    }
    let (_, rest) = cut(source, "<head>\n");
    let (title, rest) = cut(rest, "</title>\n");
    let (head, rest) = cut(rest, "</head>\n");
    let (body, rest) = cut(rest, "\n<header");
    let (header_attributes, rest) = cut(rest, ">");
    let (header, rest) = cut(rest, "</header>\n");
    let (main, _) = cut(rest, "</body>");
    let layout = match header_attributes {
        "" => LAYOUT.to_owned(),
        NO_ACCOUNT => LAYOUT.replacen(ACCOUNT, "", 1),
        other => panic!("a page's <header> has no attributes but {NO_ACCOUNT}, not {other}"),
    };
    let own = format!("<a href=\"{path}\"");
    let nav = NAV
        .trim_end()
        .replacen(&own, &format!("{own} aria-current=\"page\""), 1);
    let title = format!("{title}</title>");
    let parts = [
        title.as_str(),
        head.trim_end(),
        body,
        header.trim_end(),
        main.trim_end(),
    ];
    PAGE_MARKS
        .iter()
        .zip(parts)
        .fold(layout.replacen(NAV_MARK, &nav, 1), |html, (mark, part)| {
            html.replacen(mark, part, 1)
        })
}
