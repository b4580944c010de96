from vybe.cli.entry import main

raise SystemExit(main())
