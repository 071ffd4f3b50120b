/// What a run's report marks on its time axes beside what the CSV files show: the scenario's
/// timeline actions and the battery levels its scheduler acts at (issue 73, item 12). The report
/// reads only files; `syncsim report` fills these from the folder's `resolved.json`.
public struct RunMarks: Sendable {
  /// A timeline action: when (seconds into the run), on which device, and its name.
  public struct Action: Sendable {
    public var seconds: Double
    public var device: String
    public var name: String

    public init(seconds: Double, device: String, name: String) {
      (self.seconds, self.device, self.name) = (seconds, device, name)
    }
  }

  /// A battery level a policy acts at: below it, `policy` holds background work.
  public struct Threshold: Sendable {
    public var percent: Double
    public var policy: String

    public init(percent: Double, policy: String) { (self.percent, self.policy) = (percent, policy) }
  }

  public var actions: [Action] = []
  public var thresholds: [Threshold] = []

  public init() {}
}
