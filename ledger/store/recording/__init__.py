"""Live recording: start, append and undo (live), a live match's findings (live_audit),
what an append keeps from the one before (live_cache), writes in turn (writer) and the
recorder keys (keys)."""
