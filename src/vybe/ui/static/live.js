// vybe ui's live pages: on each `change` the server's feed sends, the page's <main> is read
// again and swapped in place, so a session or the board shows a write without a reload.
"use strict";
(function () {
  const main = document.querySelector("main[data-live]");
  if (!main || !window.EventSource) return;
  const feed = new EventSource("/live");
  let busy = false;
  feed.addEventListener("change", async function () {
    if (busy) return;
    busy = true;
    try {
      const reply = await fetch(location.href, { credentials: "same-origin" });
      const page = new DOMParser().parseFromString(await reply.text(), "text/html");
      const fresh = page.querySelector("main[data-live]");
      if (fresh) main.replaceChildren(...fresh.childNodes);
      document.body.dataset.updated = String(Date.now());
    } finally {
      busy = false;
    }
  });
})();
