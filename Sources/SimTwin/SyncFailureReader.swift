/// Reads a sync record for a failure: what failed (from the message's words), the error it
/// carries in any of the forms logs print (`Error Domain=X Code=N`, `<CKError 0x…: "Name" (7/2061)>`,
/// `NSCocoaErrorDomain:134400`, `(CKErrorDomain error 3.)`), its retry-after, and a partial
/// failure's per-record errors.
enum SyncFailureReader {
  /// A failure as one record shows it.
  struct Failure: Equatable {
    var work: String
    var domain: String?
    var code: Int?
    var internalCode: Int?
    var retryAfterSeconds: Double?
    var records: [(code: Int, internalCode: Int?, name: String, message: String)] = []
    var detail: String
    /// Whether the record only continues a failure already seen (a recovery attempt).
    var continuesEarlier = false

    static func == (a: Failure, b: Failure) -> Bool {
      a.work == b.work && a.domain == b.domain && a.code == b.code && a.internalCode == b.internalCode
        && a.retryAfterSeconds == b.retryAfterSeconds && a.detail == b.detail && a.records.count == b.records.count
    }
  }

  /// Messages that say what failed, most specific first.
  static let phrases: [(text: String, work: String)] = [
    ("Failed to set up CloudKit integration", "setup"), ("Export failed with error", "export"),
    ("Import failed with error", "import"), ("failed sending changes", "send"), ("sync failed with error", "sync"),
    ("Failed to fetch", "import"), ("Told to tear down with reason", "sync stopped"),
    ("mirroring delegate is gone", "sync stopped"),
  ]

  /// Messages that continue a failure already reported (Core Data's recovery attempts).
  static let recoveryPhrases = ["Attempting recovery from error", "Failed to recover from error", "Error recovery failed"]

  /// Errors that are noise, not sync failures (iOS 26's background-task scheduler reports its
  /// Core Data activities' expiry so).
  static let noise = ["BGSystemTaskSchedulerErrorDomain"]

  static func read(_ message: Substring) -> Failure? {
    if noise.contains(where: { message.has($0) }) { return nil }
    var work: String?
    var continues = false
    if let phrase = phrases.first(where: { message.has($0.text) }) {
      work = phrase.work
    } else if recoveryPhrases.contains(where: { message.has($0) }) {
      work = "request"
      continues = true
    } else if message.has("success: 0"), message.has("Finished request") || message.has("Finished automatic") {
      work = finishedWork(message)
    } else if message.has("<CKError 0x") || message.has("CKError \"") {
      work = "CloudKit request"
    }
    guard let work else { return nil }
    var failure = Failure(work: work, detail: "")
    failure.continuesEarlier = continues
    readError(message, into: &failure)
    if work == "sync stopped" {
      if let reason = message.byteRange(of: "with reason: ") {
        failure.detail = message[reason.upperBound...].prefix { $0 != "\n" }.prefix(120).trimmingSpaces()
      } else {
        failure.detail = "the mirroring delegate is gone"
      }
    }
    // A failure with no error and no phrase of its own is no failure (`success: 0` with `error: (null)` still is one).
    return failure
  }

  /// The work a `Finished … success: 0` message names.
  static func finishedWork(_ message: Substring) -> String {
    if message.has("Finished automatic export") { return "export" }
    if message.has("Finished automatic import") { return "import" }
    for (name, work) in UnifiedLogLine.requestClasses where message.has(name) { return work.rawValue }
    return "request"
  }

  /// The message's first error, its retry-after and its per-record errors.
  static func readError(_ message: Substring, into failure: inout Failure) {
    var top: (position: Substring.Index, domain: String, code: Int, internalCode: Int?)?
    func consider(_ position: Substring.Index, _ domain: String, _ code: Int, _ internalCode: Int?) {
      if top == nil || position < top!.position { top = (position, domain, code, internalCode) }
    }
    if let found = message.byteRange(of: "Error Domain=") {
      let rest = message[found.upperBound...]
      let domain = rest.prefix { $0 != " " && $0 != "," }
      if let code = rest.byteRange(of: "Code="), let value = integer(rest[code.upperBound...]) {
        var internalCode: Int?
        if domain == "CKErrorDomain", let underlying = rest.byteRange(of: "CKInternalErrorDomain Code=") {
          internalCode = integer(rest[underlying.upperBound...])
        }
        consider(found.lowerBound, String(domain), value, internalCode)
      }
    }
    let ckErrors = ckErrorMentions(message)
    if let first = ckErrors.first { consider(first.position, "CKErrorDomain", first.code, first.internalCode) }
    for domain in ["NSCocoaErrorDomain", "CKErrorDomain"] {
      if let found = message.byteRange(of: domain + ":"), let value = integer(message[found.upperBound...]) {
        consider(found.lowerBound, domain, value, nil)
      }
      if let found = message.byteRange(of: "(" + domain + " error "), let value = integer(message[found.upperBound...]) {
        consider(found.lowerBound, domain, value, nil)
      }
    }
    if let top {
      failure.domain = top.domain
      failure.code = top.code
      failure.internalCode = top.internalCode
    }
    failure.retryAfterSeconds = retryAfter(message)
    // The per-record errors: every CKError after the first (a partial failure lists them).
    let inner = ckErrors.filter { mention in top.map { mention.position > $0.position } ?? true }
    if top?.code == 2 || top == nil && inner.count > 1 {
      failure.records = inner.map { ($0.code, $0.internalCode, $0.name, $0.serverMessage) }
    }
    if let server = message.byteRange(of: "server message = ") {
      failure.detail = quoted(message[server.upperBound...])
    } else if let first = ckErrors.first, !first.serverMessage.isEmpty, top?.position == first.position {
      failure.detail = first.serverMessage
    } else if let description = message.byteRange(of: "Code=") {
      let after = message[description.upperBound...].drop { $0.isNumber || $0 == "-" }.drop { $0 == " " }
      if after.hasPrefix("\"") { failure.detail = String(after.dropFirst().prefix { $0 != "\"" }.prefix(160)) }
    }
  }

  /// `<CKError 0x…: "Request Rate Limited" (7/2061); server message = "…">` and `CKError "Name" (2/1011)`.
  static func ckErrorMentions(_ message: Substring) -> [(position: Substring.Index, code: Int, internalCode: Int?, name: String, serverMessage: String)] {
    var found: [(Substring.Index, Int, Int?, String, String)] = []
    var cursor = message[...]
    while let mention = cursor.byteRange(of: "CKError") {
      let after = cursor[mention.upperBound...]
      cursor = after
      // The name in quotes, then `(code` or `(code/internal)`.
      guard let open = after.prefix(40).firstIndex(of: "\"") else { continue }
      let nameStart = after.index(after: open)
      guard let close = after[nameStart...].prefix(80).firstIndex(of: "\"") else { continue }
      let name = after[nameStart..<close]
      let tail = after[after.index(after: close)...].drop { $0 == " " }
      guard tail.hasPrefix("("), let code = integer(tail.dropFirst()) else { continue }
      let numbers = tail.dropFirst().prefix { $0 != ")" }
      let internalCode = numbers.firstIndex(of: "/").flatMap { integer(numbers[numbers.index(after: $0)...]) }
      let end = tail.prefix(400).firstIndex(of: ">") ?? tail.endIndex
      var server = ""
      if let range = tail[..<end].byteRange(of: "server message = ") {
        server = quoted(tail[range.upperBound...])
      } else if let closing = tail.firstIndex(of: ")"), tail[closing...].hasPrefix("); \"") {
        // `(12); "You can't save the same record twice: …"`: the error's own description.
        server = String(tail[tail.index(closing, offsetBy: 4)...].prefix { $0 != "\"" }.prefix(160))
      }
      found.append((mention.lowerBound, code, internalCode, String(name), server))
    }
    // `→ "Server Rejected Request" (15/2000)`: CloudKit's `"Name" (code/internal)` without the word.
    var rest = message[...]
    while let mark = rest.byteRange(of: "\" (") {
      rest = message[mark.upperBound...]
      let numbers = rest.prefix { $0 != ")" }.prefix(14)
      guard let slash = numbers.firstIndex(of: "/"), let code = integer(numbers), numbers[..<slash].allSatisfy(\.isNumber),
        let internalCode = integer(numbers[numbers.index(after: slash)...]), numbers.last?.isNumber == true
      else { continue }
      guard !found.contains(where: { $0.1 == code && $0.2 == internalCode }) else { continue }
      let before = message[..<mark.lowerBound]
      guard let open = before.lastIndex(of: "\"") else { continue }
      let name = before[before.index(after: open)...]
      guard name.count < 60 else { continue }
      found.append((open, code, internalCode, String(name), ""))
    }
    return found.sorted { $0.0 < $1.0 }
  }

  /// The quoted text at the start of `text` (`"…"`, or `\"…\"` inside a dictionary's dump).
  static func quoted(_ text: Substring) -> String {
    let body = text.drop { $0 == "\\" }.drop { $0 == "\"" }
    return String(body.prefix { $0 != "\"" && $0 != "\\" }.prefix(160))
  }

  /// `Retry after 20.5 seconds`, `CKRetryAfter=30`, `retryAfter: 30.0s`.
  static func retryAfter(_ message: Substring) -> Double? {
    for key in ["Retry after ", "CKRetryAfter=", "retryAfter: ", "CKErrorRetryAfterKey=", "retry after "] {
      if let found = message.byteRange(of: key) {
        let digits = message[found.upperBound...].prefix { $0.isNumber || $0 == "." }
        if let value = Double(digits), value.isFinite, value >= 0, value < 1e9 { return value }
      }
    }
    return nil
  }

  /// A whole number at the start of `text` (at most 12 digits, so it fits).
  static func integer(_ text: Substring) -> Int? {
    let negative = text.first == "-"
    let digits = (negative ? text.dropFirst() : text).prefix { $0.isNumber && $0.isASCII }.prefix(12)
    guard !digits.isEmpty, let value = Int(digits) else { return nil }
    return negative ? -value : value
  }
}
