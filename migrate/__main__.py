from fixture_migrate.cli.entry import main

raise SystemExit(main())
