from k0maru.cli.main import entry

entry()
