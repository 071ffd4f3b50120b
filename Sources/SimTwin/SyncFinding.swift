/// A failure a sync log shows: a setup, export, import or request that failed, a send or sync
/// CKSyncEngine reports failed, or a message that says sync stopped. With what failed, the
/// error's domain and code, what they mean and what to do (`ErrorCatalogue`), and where the log
/// says it. The lines one failure prints (Xcode's doubled error, the recovery attempts, the
/// request's end) are one finding.
public struct SyncFinding: Sendable, Equatable {
  public var device: Int
  /// When, on the device's clock; nil in a log without times (then `order` places it).
  public var time: Int64?
  /// The record's position among the log's sync records (1 = first).
  public var order: Int
  public var file: Int
  public var line: Int
  /// What failed: `setup`, `export`, `import`, `request`, `send`, `sync`, `sync stopped`, `CloudKit request`.
  public var work: String
  public var domain: String?
  public var code: Int?
  /// CloudKit's internal code (`2006` of `12/2006`), when printed.
  public var internalCode: Int?
  public var name: String
  public var meaning: String
  public var action: String
  public var source: String
  /// The retry-after the error carries, in seconds.
  public var retryAfterSeconds: Double?
  /// The per-record errors of a partial failure, as `12/2006 Invalid Arguments: server message`.
  public var records: [String] = []
  /// The server's message, the teardown's reason, or the start of the error's text.
  public var detail: String
  /// How many log records this finding gathers.
  public var repeats = 1

  /// The finding in one line for the terminal: what failed, the error, what it means, what to do.
  public var sentence: String {
    var text = "\(work) failed"
    if work == "sync stopped" { text = "sync stopped" }
    if let domain, let code { text += ": \(domain) \(code)\(internalCode.map { "/\($0)" } ?? "")" }
    text += " \(name)"
    if let retryAfterSeconds { text += ", retry after \(Self.number(retryAfterSeconds)) s" }
    if !records.isEmpty { text += "; \(records.count) record error\(records.count == 1 ? "" : "s"): \(records[0])" }
    if !meaning.isEmpty { text += ". \(meaning)" }
    if !action.isEmpty { text += ". Do: \(action)" }
    if !source.isEmpty { text += " [\(source.prefix { $0 != "(" }.trimmingSpaces())]" }
    return text
  }

  /// `30` for 30.0, `20.5` for 20.5: a retry-after as the error printed it.
  static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
  }
}
