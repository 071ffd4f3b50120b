import Foundation
import SimKernel
import SimMetrics

/// `run-shard.txt`: what a shard of a run (`syncsim run --shard I/N`) keeps beside its files so
/// that `syncsim merge` can add the shards up into the unsharded run's files: which run and
/// shard it is, its parts, its parts' fingerprints, the writes and activities its rows number,
/// its tally (`SummaryTally.text`), and a manifest of its per-row files (rows, bytes and digest
/// of each), so that a file cut short or edited on its way to the merge is found.
public struct RunShardFile: Sendable {
  public static let name = "run-shard.txt"
  static let format = "syncsim-run-shard 3"

  /// A per-row file as the shard wrote it: data rows (header not counted), bytes, and the FNV-1a
  /// 64-bit digest of its bytes in hexadecimal.
  public struct FileEntry: Sendable, Equatable {
    public var name: String
    public var rows: Int
    public var bytes: Int
    public var digest: String

    public init(name: String, rows: Int, bytes: Int, digest: String) {
      self.name = name
      self.rows = rows
      self.bytes = bytes
      self.digest = digest
    }

    /// The entry of a file of `lines` lines, `bytes` bytes and FNV-1a state `hash` so far.
    public init(name: String, lines: Int, bytes: Int, hash: UInt64) {
      self.init(name: name, rows: max(0, lines - 1), bytes: bytes, digest: String(hash, radix: 16))
    }

    /// `file.NAME ROWS BYTES DIGEST`.
    public var line: String { "file.\(name) \(rows) \(bytes) \(digest)" }

    /// Every `file.` line of `fields` read back, in key order; or the key of the first malformed
    /// one. The manifest of `run-shard.txt` and a shard's checkpoint (`RunShardJournal`).
    public static func entries(in fields: TallyText) -> Result<[FileEntry], Problem> {
      var entries: [FileEntry] = []
      for key in fields.keys where key.hasPrefix("file.") {
        guard let values = fields.fields(key), values.count == 3, let rows = Int(values[0]), rows >= 0,
          let bytes = Int(values[1]), bytes >= 0, UInt64(values[2], radix: 16) != nil
        else { return .failure(Problem("malformed manifest line \(key)")) }
        entries.append(FileEntry(name: String(key.dropFirst(5)), rows: rows, bytes: bytes, digest: String(values[2])))
      }
      return .success(entries)
    }

    /// The entry of the file at `path` (of its first `limit` bytes), read in chunks; nil when it
    /// cannot be read, or is shorter than `limit`.
    public static func of(_ path: String, name: String, limit: Int = .max) -> FileEntry? {
      guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
      defer { try? handle.close() }
      var hash = StableHash.fnv1aBasis
      var (bytes, lines) = (0, 0)
      while bytes < limit {
        // nil or empty at the end of the file (Foundation on Linux answers nil there).
        let read: Data?
        do { read = try handle.read(upToCount: min(1 << 20, limit - bytes)) } catch { return nil }
        guard let chunk = read, !chunk.isEmpty else { break }
        chunk.withUnsafeBytes { raw in
          hash = StableHash.fnv1a(raw, from: hash)
          lines += raw.count { $0 == 0x0A }
        }
        bytes += chunk.count
      }
      if limit != .max && bytes < limit { return nil }
      return FileEntry(name: name, lines: lines, bytes: bytes, hash: hash)
    }
  }

  /// The manifest lines of the per-row files `names` in `folder` (those that exist), for the end
  /// of a shard's `run-shard.txt`: written after the files are, before the set is committed.
  public static func manifest(of names: [String], in folder: String) -> String {
    names.compactMap { name in FileEntry.of(folder + "/" + name, name: name)?.line }.map { $0 + "\n" }.joined()
  }

  public var scenario: String
  public var scenarioHash: String
  public var seed: UInt64
  public var version: String
  public var shard: RunShard
  public var parts: Range<Int>
  public var partCount: Int
  public var writes: Int
  public var activities: Int
  public var endTime: SimTime
  public var stoppedAtEventLimit: Bool
  public var fingerprints: [TrajectoryFingerprint]
  public var tally: SummaryTally
  /// The per-row files the shard wrote, as it wrote them.
  public var files: [FileEntry]
  /// The `syncsim run` command line that runs any shard of the run once `--shard I/N --out DIR`
  /// is added (shell-quoted); nil when the shard's file has none.
  public var command: String?
  /// The file's lines as text (every number in them is range-checked by the merge).
  public var text: TallyText

  /// The file of `report`, a shard's run. - Precondition: `report.shard` is set.
  static func text(_ report: RunReport, version: String) -> String {
    let shard = report.shard!
    let lines = [
      format, "scenario \(report.scenario.name)", "scenarioHash \(report.scenarioHash)", "seed \(report.seed)",
      "version \(version)", "shard \(shard.shard.index) \(shard.shard.count)",
      "parts \(shard.parts.lowerBound) \(shard.parts.upperBound) \(shard.partCount)",
      "partWrites \(shard.writes)", "partActivities \(shard.activities)",
      "endTime \(report.outcome.endTime.nanoseconds)",
      "eventLimit \(report.outcome.stopReason.isEventLimit ? 1 : 0)",
      "fingerprints " + report.partFingerprints.map { String($0.value, radix: 16) }.joined(separator: " "),
    ]
    return lines.joined(separator: "\n") + "\n" + shard.tally.text
  }

  /// Why a folder's `run-shard.txt` cannot be merged.
  public struct Problem: Error {
    public let message: String
    init(_ message: String) { self.message = message }
  }

  /// Reads a shard's file, or says why it is not one or is malformed.
  public static func read(_ text: String) -> Result<RunShardFile, Problem> {
    guard text.hasPrefix(format + "\n") else {
      if text.hasPrefix("syncsim-run-shard ") {
        return .failure(Problem("written by another syncsim (\(text.prefix { $0 != "\n" }), not \(format)): run the shard again"))
      }
      return .failure(Problem("not a run shard's file (\(format))"))
    }
    // Its own digest first (issue 71, item 4: an in-range edit merged silently).
    guard let body = SelfDigest.verified(text) else {
      return .failure(
        Problem("its digest line does not match its contents (edited, or cut short on its way): copy the shard "
          + "again, or run it again"))
    }
    let fields = TallyText(String(body))
    let files: [FileEntry]
    switch FileEntry.entries(in: fields) {
    case .success(let entries): files = entries
    case .failure(let problem): return .failure(problem)
    }
    func word(_ key: String) -> String? { fields.fields(key).flatMap { $0.count == 1 ? String($0[0]) : nil } }
    guard let scenario = word("scenario"), let hash = word("scenarioHash"),
      let seed = word("seed").flatMap(UInt64.init),
      let version = word("version"), let shard = fields.integers("shard"), shard.count == 2,
      shard[1] >= 1, shard[1] <= 1_000_000, shard[0] >= 1, shard[0] <= shard[1],
      let parts = fields.integers("parts"), parts.count == 3, parts[0] >= 0, parts[0] <= parts[1],
      parts[1] <= parts[2], parts[2] <= Int64(Int32.max),
      let writes = fields.integer("partWrites"), let activities = fields.integer("partActivities"),
      let end = fields.integer("endTime"), let limit = fields.integer("eventLimit"),
      let prints = fields.fields("fingerprints"), writes >= 0, activities >= 0, end >= 0
    else { return .failure(Problem("malformed header (a field missing, or a number out of its range)")) }
    var fingerprints: [TrajectoryFingerprint] = []
    for print in prints {
      guard let value = UInt64(print, radix: 16) else { return .failure(Problem("malformed fingerprint \(print)")) }
      fingerprints.append(TrajectoryFingerprint(value: value))
    }
    guard fingerprints.count == Int(parts[1] - parts[0]) else {
      return .failure(Problem("\(fingerprints.count) fingerprints for \(parts[1] - parts[0]) parts"))
    }
    guard let tally = SummaryTally(text: fields) else { return .failure(Problem("malformed tally")) }
    return .success(
      RunShardFile(
        scenario: scenario, scenarioHash: hash, seed: seed, version: version,
        shard: RunShard(index: Int(shard[0]), count: Int(shard[1])), parts: Int(parts[0])..<Int(parts[1]),
        partCount: Int(parts[2]), writes: Int(writes), activities: Int(activities),
        endTime: SimTime(nanoseconds: end), stoppedAtEventLimit: limit == 1, fingerprints: fingerprints,
        tally: tally, files: files, command: fields.raw("command").map(String.init), text: fields))
  }
}
