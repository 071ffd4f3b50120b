import SimMetrics

/// One file of a run's results: a short text, or CSV rows produced into a stream as it is
/// written, so a file of millions of rows never sits in memory whole.
public struct ResultFile {
  public var name: String
  public var text: String?
  public var columns: [String] = []
  /// Produces every row into the stream, in order.
  public var rows: ((inout CSVStream) -> Void)?
  /// Makes `text` when the file is written.
  public var lazyText: (() -> String)?
  /// Already written where the set is being staged (rows written part by part during the run).
  public var written = false

  public init(name: String, text: String) {
    self.name = name
    self.text = text
  }

  /// A short text made only when the file is written (after the files before it in its set).
  public init(name: String, lazyText: @escaping () -> String) {
    self.name = name
    self.lazyText = lazyText
  }

  public init(name: String, columns: [String], rows: @escaping (inout CSVStream) -> Void) {
    self.name = name
    self.columns = columns
    self.rows = rows
  }

  /// Writes the file's bytes through `write`, in chunks of about a megabyte.
  public func produce(_ write: @escaping ([UInt8]) throws -> Void) throws {
    if let text = text ?? lazyText?() {
      try write(Array(text.utf8))
      return
    }
    var stream = CSVStream(columns: columns, write: write)
    rows?(&stream)
    try stream.finish()
  }

  /// The whole file as text (for small files and comparisons).
  public func renderedText() -> String {
    var bytes: [UInt8] = []
    try? produce { bytes += $0 }
    return String(decoding: bytes, as: UTF8.self)
  }
}
