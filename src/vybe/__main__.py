from vybe.cli.main import main

raise SystemExit(main())
