from k0maru.cli import main

raise SystemExit(main())
