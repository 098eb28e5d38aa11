"""Pages and pictures of a compiled plan: Markdown, HTML, Mermaid, DOT, SVG. Never imports compile."""
