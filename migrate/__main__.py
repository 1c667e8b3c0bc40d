from fixture_migrate.cli.app import main

raise SystemExit(main())
