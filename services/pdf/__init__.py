"""PDF documents of the panel: each builder is ``render_x(data) -> bytes`` on a fresh FPDF."""
