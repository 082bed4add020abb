"""Remote moderators: paid APIs and guard models behind HTTP, one ``Moderator`` each."""
