import SimKernel

/// The seven stage durations of a latency row (spec §10), in `LatencyRow.stageNames` order.
///
/// Stored inline rather than as an array: a large run has millions of rows (10,000 public-database
/// readers × a day's posts), and an array per row cost an allocation and about 90 bytes each.
public struct StageDurations: RandomAccessCollection, MutableCollection, Equatable, Sendable {
  public var save = SimDuration.zero
  public var exportSchedule = SimDuration.zero
  public var upload = SimDuration.zero
  public var notify = SimDuration.zero
  public var importSchedule = SimDuration.zero
  public var download = SimDuration.zero
  public var ui = SimDuration.zero

  public init() {}

  public var startIndex: Int { 0 }
  public var endIndex: Int { 7 }

  public subscript(position: Int) -> SimDuration {
    get {
      switch position {
      case 0: save
      case 1: exportSchedule
      case 2: upload
      case 3: notify
      case 4: importSchedule
      case 5: download
      case 6: ui
      default: preconditionFailure("stage \(position) is outside 0..<7")
      }
    }
    set {
      switch position {
      case 0: save = newValue
      case 1: exportSchedule = newValue
      case 2: upload = newValue
      case 3: notify = newValue
      case 4: importSchedule = newValue
      case 5: download = newValue
      case 6: ui = newValue
      default: preconditionFailure("stage \(position) is outside 0..<7")
      }
    }
  }
}
