from fastenough.cli.main import main

raise SystemExit(main())
