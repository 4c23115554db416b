"""The PDF kit every document uses: fonts, colours, QR code and the municipal letterhead."""
