// The service worker: keeps this release's pages and assets (both WebAssembly modules
// among them) so that the site opens and the game against the computer plays with no
// network. The server writes the release and the list into this file (server/src/api/
// web.rs): a new release is a new worker, which keeps its own copy and drops the old.
//
// Assets live under /assets/RELEASE/ and never change there: they come from the copy
// first. Pages come from the network first, so that an online visit sees the newest,
// and from the copy when the network fails. The API and the WebSocket are never kept.

const RELEASE = '__RELEASE__';
const CACHE = `punct-${RELEASE}`;
const PRECACHE = __PRECACHE__;
// Answers vary with Accept-Encoding, which a request made here does not show.
const ANY = { ignoreVary: true };

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE))
      .then(() => self.skipWaiting()),
  );
});

// No clients.claim(): the pages open now stay as they are (taking them would also drop
// them from the browser's back/forward cache); the next page loaded comes through here.
self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith('punct-') && n !== CACHE).map((n) => caches.delete(n)))),
  );
});

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== location.origin) return;
  if (url.pathname.startsWith('/assets/')) {
    event.respondWith(caches.match(event.request, ANY).then((kept) => kept ?? fetch(event.request)));
  } else if (event.request.mode === 'navigate') {
    event.respondWith(
      fetch(event.request).catch(async () => {
        const cache = await caches.open(CACHE);
        // A page of a room or a player cannot work offline: the game against the
        // computer can.
        return (await cache.match(url.pathname, ANY)) ?? (await cache.match('/offline', ANY));
      }),
    );
  }
});
