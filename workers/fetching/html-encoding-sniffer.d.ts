/** Types for html-encoding-sniffer 4, which ships none. */
declare module 'html-encoding-sniffer' {
  /**
   * The WHATWG encoding sniffing algorithm: BOM, then the transport label,
   * then a `<meta>` prescan of the first 1024 bytes, then the default.
   * Returns a WHATWG encoding name.
   */
  function sniffHTMLEncoding(bytes: Uint8Array, options?: { transportLayerEncodingLabel?: string; defaultEncoding?: string }): string;
  export = sniffHTMLEncoding;
}
