// Entry point of every page: <body data-page="lobby|table"> says which page to start.

const page = document.body.dataset.page;
if (page === "lobby") {
  const { startLobby } = await import("./lobby.js");
  startLobby();
} else if (page === "table") {
  const { startTable } = await import("./table.js");
  startTable();
}
