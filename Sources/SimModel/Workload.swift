import SimKernel

/// What makes a workload's edits when the app is not in front.
public enum EditSource: String, Sendable, CaseIterable, Codable {
  case app, `extension`
}

/// Poisson edits on a device (spec §4 workloads).
public struct Workload: Equatable, Sendable {
  /// Mean edits per hour.
  public var editsPerHour: Double
  /// Share of edits that insert a new object (the rest update, or delete).
  public var insertShare = 0.3
  /// Share of edits that delete an object.
  public var deleteShare = 0.0
  /// Index into `WorldSpec.entities`.
  public var entity = 0
  /// Edits happen only while the app is in the foreground (a person edits in the app).
  public var foregroundOnly = false
  /// What makes the edits when the app is not in front (issue 34): the app itself, which must
  /// run to edit, so an edit wakes a suspended or not-running app into the background for its
  /// `backgroundGrace` (as a background task would), or an extension (a widget, a share
  /// extension) that saves to the shared store while the app sleeps, whose export waits for the
  /// app's next run ([A] Core Data exports from the app's process).
  public var source = EditSource.app
  /// The store the edits write: an index into the device's `stores`; nil writes the first
  /// syncing store.
  public var store: Int?
  /// Edits on a clock rather than Poisson (`editsPerHour` is then 3600 / period, for estimates).
  public var period: Period?
  /// Poisson edits stop here, so a run can drain before its end (nil: they go on to the end).
  public var until: SimDuration?
  public init(editsPerHour: Double) { self.editsPerHour = editsPerHour }
}
