import SimKernel
import SimModel

/// A tally as text (`TallyText`): what a shard of a run (`syncsim run --shard I/N`) keeps so that
/// `syncsim merge` adds the shards up exactly as the unsharded run adds its parts. Every sum is
/// exact (integers, the latencies' 128-bit sum), so the merged summary is byte-identical.
extension SummaryTally {
  /// The tally's lines, in a fixed order.
  public var text: String {
    func line(_ key: String, _ values: [String]) -> String { ([key] + values).joined(separator: " ") }
    func ints(_ values: [Int]) -> [String] { values.map(String.init) }
    func ns(_ values: [SimDuration]) -> [String] { values.map { String($0.nanoseconds) } }
    let c = counters
    var lines = [
      line("events", [String(events)]),
      line("rows", ints([rowCount, hiddenRows, notVisibleRows])),
      line("converged", [converged ? "1" : "0"]),
      line("lastEditAt", lastEditAt.map { [String($0.nanoseconds)] } ?? []),
      line("lastStoreChangeAt", [String(lastStoreChangeAt.nanoseconds)]),
      line(
        "accounting",
        ints([
          accounting.committed, accounting.lostUpdates, accounting.supersededLocally, accounting.pending,
          accounting.lost,
        ])),
      line(
        "activities", ints([c.exportsSucceeded, c.exportsFailed, c.importsSucceeded, c.importsFailed, c.resets])),
      line(
        "requests",
        ints([c.requestsUp, c.requestsDown, c.recordsUp, c.recordsDown]) + [String(c.bytesUp), String(c.bytesDown)]),
      line("pushes", ints(c.pushes)),
      line("cloudErrors", ints(c.cloudErrors)),
      line("edits", ints([c.lostUpdates, c.localEdits, c.setupFailures])),
      line("retryAfter", [String(c.retryAfterCount)] + ns([c.retryAfterTotal, c.retryAfterLongest])),
      line("orphans", [String(c.orphanWindows)] + ns([c.orphanTotal, c.orphanLongest])),
      line("blockedCount", ints(c.blockedCount)),
      line("blockedTotal", ns(c.blockedTotal)),
      line("blockedLongest", ns(c.blockedLongest)),
      line(
        "finalState",
        ints([
          finalState.ghosts, finalState.duplicates, finalState.counterValue, finalState.contributions,
          finalState.hiddenRecords,
        ])),
      line(
        "longest",
        longest.flatMap {
          [$0.name, String($0.longest.duration.nanoseconds), String($0.longest.startedAt.nanoseconds)]
        }
      ),
      line("policyNames", policyNames),
      line("reportedErrors", reportedErrors.map(\.rawValue)),
      line("stageSums", stageSums.map { String($0) }),
    ]
    // A watched write's line, `watch.<name>`: the edit, rows, visible rows, first and slowest
    // (nanoseconds; "-" for none). Watches are in name order, as the keys sort.
    func optional(_ value: Int64?) -> String { value.map(String.init) ?? "-" }
    for arrival in arrivals {
      lines.append(
        line(
          "watch.\(arrival.name)",
          [
            optional(arrival.editedAt?.nanoseconds), String(arrival.rows), String(arrival.visibleOn),
            optional(arrival.first?.nanoseconds), optional(arrival.slowest?.nanoseconds),
          ]))
    }
    lines += latencies.textLines()
    lines += censored.textLines(prefix: "censored")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The tally `text` wrote; nil when a line is missing or malformed.
  public init?(text: TallyText) {
    func ints(_ key: String, _ count: Int? = nil) -> [Int]? {
      guard let values = text.integers(key), count.map({ values.count == $0 }) ?? true else { return nil }
      return values.map(Int.init)
    }
    func durations(_ key: String) -> [SimDuration]? {
      text.integers(key).map { $0.map { SimDuration(nanoseconds: $0) } }
    }
    guard let events = text.integer("events"), let rows = ints("rows", 3), let converged = ints("converged", 1),
      let lastEdit = text.integers("lastEditAt"), lastEdit.count <= 1,
      let lastChange = text.integer("lastStoreChangeAt"), let accounting = ints("accounting", 5),
      let activities = ints("activities", 5), let requests = text.integers("requests"), requests.count == 6,
      let pushes = ints("pushes", PushEvent.allCases.count),
      let errors = ints("cloudErrors", CloudError.allCases.count),
      let edits = ints("edits", 3), let retry = text.integers("retryAfter"), retry.count == 3,
      let orphans = text.integers("orphans"), orphans.count == 3, let blockedCount = ints("blockedCount"),
      let blockedTotal = durations("blockedTotal"), let blockedLongest = durations("blockedLongest"),
      blockedTotal.count == blockedCount.count, blockedLongest.count == blockedCount.count,
      let final = ints("finalState", 5), let longest = text.fields("longest"), longest.count % 3 == 0,
      let policyNames = text.fields("policyNames")?.map(String.init),
      let errorNames = text.fields("reportedErrors"), let sums = text.fields("stageSums"),
      sums.count == LatencyRow.stageNames.count, let latencies = LatencySample(text: text),
      var censored = LatencySample(text: text, prefix: "censored")
    else { return nil }
    censored.exactLimit = LatencySample.censoredExactLimit
    var counters = RunCounters()
    (counters.exportsSucceeded, counters.exportsFailed) = (activities[0], activities[1])
    (counters.importsSucceeded, counters.importsFailed, counters.resets) = (activities[2], activities[3], activities[4])
    (counters.requestsUp, counters.requestsDown) = (Int(requests[0]), Int(requests[1]))
    (counters.recordsUp, counters.recordsDown) = (Int(requests[2]), Int(requests[3]))
    (counters.bytesUp, counters.bytesDown) = (requests[4], requests[5])
    counters.pushes = pushes
    counters.cloudErrors = errors
    (counters.lostUpdates, counters.localEdits, counters.setupFailures) = (edits[0], edits[1], edits[2])
    counters.retryAfterCount = Int(retry[0])
    counters.retryAfterTotal = SimDuration(nanoseconds: retry[1])
    counters.retryAfterLongest = SimDuration(nanoseconds: retry[2])
    counters.orphanWindows = Int(orphans[0])
    counters.orphanTotal = SimDuration(nanoseconds: orphans[1])
    counters.orphanLongest = SimDuration(nanoseconds: orphans[2])
    (counters.blockedCount, counters.blockedTotal, counters.blockedLongest) = (
      blockedCount, blockedTotal, blockedLongest
    )
    self.counters = counters
    self.policyNames = policyNames
    var reported: [CloudError] = []
    for name in errorNames {
      guard let error = CloudError(rawValue: String(name)) else { return nil }
      reported.append(error)
    }
    reportedErrors = reported
    var stageSums: [Int128] = []
    for sum in sums {
      guard let value = Int128(String(sum)) else { return nil }
      stageSums.append(value)
    }
    self.stageSums = stageSums
    self.events = Int(events)
    (rowCount, hiddenRows, notVisibleRows) = (rows[0], rows[1], rows[2])
    self.converged = converged[0] == 1
    lastEditAt = lastEdit.first.map { SimTime(nanoseconds: $0) }
    lastStoreChangeAt = SimTime(nanoseconds: lastChange)
    self.accounting.committed = accounting[0]
    self.accounting.lostUpdates = accounting[1]
    self.accounting.supersededLocally = accounting[2]
    self.accounting.pending = accounting[3]
    self.accounting.lost = accounting[4]
    (finalState.ghosts, finalState.duplicates, finalState.counterValue) = (final[0], final[1], final[2])
    (finalState.contributions, finalState.hiddenRecords) = (final[3], final[4])
    var entries: [(name: String, longest: (duration: SimDuration, startedAt: SimTime))] = []
    var index = 0
    while index < longest.count {
      guard let duration = Int64(longest[index + 1]), let started = Int64(longest[index + 2]) else { return nil }
      entries.append(
        (String(longest[index]), (SimDuration(nanoseconds: duration), SimTime(nanoseconds: started))))
      index += 3
    }
    self.longest = entries
    self.latencies = latencies
    self.censored = censored
    for key in text.keys where key.hasPrefix("watch.") {
      guard let fields = text.fields(key), fields.count == 5, let rows = Int(fields[1]), let visible = Int(fields[2])
      else { return nil }
      func optional(_ field: Substring) -> Int64?? { field == "-" ? .some(nil) : Int64(field).map { .some($0) } }
      guard let edited = optional(fields[0]), let first = optional(fields[3]), let slowest = optional(fields[4]) else {
        return nil
      }
      var arrival = WriteWatch.Arrival(name: String(key.dropFirst(6)))
      arrival.editedAt = edited.map { SimTime(nanoseconds: $0) }
      (arrival.rows, arrival.visibleOn) = (rows, visible)
      arrival.first = first.map { SimDuration(nanoseconds: $0) }
      arrival.slowest = slowest.map { SimDuration(nanoseconds: $0) }
      arrivals.append(arrival)
    }
  }
}
