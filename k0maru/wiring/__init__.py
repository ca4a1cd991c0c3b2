"""The open vault: the index of `index/` with the engines that read it (`search/`, `notes/`) wired
to it, shared by the service and the engines. Kept out of `index/` so the storage package imports
nothing above it."""
