"""Log offloading: run a command, keep its full log on disk, hand the terminal a short summary."""
