/// What a report draws and how it names it: the choices of `syncsim report`'s flags. A sweep's
/// own labels (its scenario's `sweep.title` and factors' `label` and `scale`, carried in
/// `datapackage.json`) apply where these leave a choice open.
public struct ReportOptions: Sendable {
  /// How the x axis spaces a numeric factor's values.
  public enum XScale: String, Sendable, CaseIterable {
    /// Log where the values span two decades or more, else linear (or the scenario's choice).
    case auto
    case linear
    case log
  }

  /// The write whose journey a run's report draws (nil: the slowest).
  public var write: Int?
  /// A sweep's metrics, one chart each (empty: `SweepPage.defaultMetrics`).
  public var metrics: [String] = []
  /// A sweep's x-axis factor (nil: the first numeric factor with two values).
  public var x: String?
  /// The x axis's scale (nil: the scenario's, else `auto`).
  public var xScale: XScale?
  /// The page's title (nil: the sweep's title, else the scenario's name).
  public var title: String?
  /// Names for factors and metrics in axes, legends and headings, by column name; a later entry
  /// for the same column wins.
  public var labels: [(column: String, text: String)] = []
  /// The standalone charts' names begin with it.
  public var chartPrefix = "report"
  /// A run's timeline actions and battery thresholds, for its device strip (nil: none known).
  public var marks: RunMarks?

  public init() {}

  /// The label given for `column`, if any.
  func label(_ column: String) -> String? { labels.last { $0.column == column }?.text }
}
