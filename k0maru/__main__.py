from k0maru.cli.main import main

raise SystemExit(main())
