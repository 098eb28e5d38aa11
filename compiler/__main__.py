from __future__ import annotations

from compiler.launch import main

raise SystemExit(main())
