import SimKernel
import SimModel

/// The counters of spec §10, accumulated from observations.
public struct RunCounters: Sendable {
  public var exportsSucceeded = 0
  public var exportsFailed = 0
  public var importsSucceeded = 0
  public var importsFailed = 0
  public var requestsUp = 0
  public var requestsDown = 0
  public var recordsUp = 0
  public var recordsDown = 0
  public var bytesUp: Int64 = 0
  public var bytesDown: Int64 = 0
  /// Indexed like `PushEvent.allCases`.
  public var pushes = [Int](repeating: 0, count: PushEvent.allCases.count)
  public var lostUpdates = 0
  /// Indexed like `CloudError.allCases`.
  public var cloudErrors = [Int](repeating: 0, count: CloudError.allCases.count)
  /// The retry-afters the server answered with: how many, their sum and the longest.
  public var retryAfterCount = 0
  public var retryAfterTotal = SimDuration.zero
  public var retryAfterLongest = SimDuration.zero
  public var resets = 0
  /// Edits of entities in local-only configurations (they never sync).
  public var localEdits = 0
  /// Orphan windows: how many, their total and longest duration.
  public var orphanWindows = 0
  public var orphanTotal = SimDuration.zero
  public var orphanLongest = SimDuration.zero
  public var setupFailures = 0
  /// Per policy index: refusals, total and longest blocked time.
  public var blockedCount: [Int] = []
  public var blockedTotal: [SimDuration] = []
  public var blockedLongest: [SimDuration] = []

  mutating func countActivity(_ kind: ActivityKind, succeeded: Bool) {
    switch (kind, succeeded) {
    case (.export, true): exportsSucceeded += 1
    case (.export, false): exportsFailed += 1
    case (.import, true): importsSucceeded += 1
    case (.import, false): importsFailed += 1
    case (.setup, _): break
    }
  }

  mutating func countRequest(upload: Bool, records: Int, bytes: Int64) {
    if upload {
      requestsUp += 1
      recordsUp += records
      bytesUp += bytes
    } else {
      requestsDown += 1
      recordsDown += records
      bytesDown += bytes
    }
  }

  /// The count of one push event.
  public func pushCount(_ event: PushEvent) -> Int { pushes[Int(event.position)] }
}
