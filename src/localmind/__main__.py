from localmind.cli import main

raise SystemExit(main())
