import Foundation

/// A file's lines, read a block at a time: a log of any size is read in bounded memory (the
/// block, plus one line of at most `maxLineBytes`).
struct LogLines {
  static let blockBytes = 1 << 20
  /// Longer lines are cut off and reported: no sync event is that long.
  static let maxLineBytes = 1 << 20

  let handle: FileHandle
  var buffer: [UInt8] = []
  var position = 0
  var finished = false

  init(path: String) throws(Unreadable) {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
      throw Unreadable(path: path, reason: "no such file")
    }
    guard !isFolder.boolValue else { throw Unreadable(path: path, reason: "a folder, not a log file") }
    guard let handle = FileHandle(forReadingAtPath: path) else { throw Unreadable(path: path, reason: "not readable") }
    self.handle = handle
  }

  /// A log file that cannot be opened, and why.
  struct Unreadable: Error, CustomStringConvertible {
    var path: String
    var reason: String
    var description: String { "\(path): \(reason)" }
  }

  /// The next line without its line break (a `\r` before it is dropped too), and whether it
  /// was cut at `maxLineBytes`; nil at the end of the file.
  mutating func next() -> (bytes: ArraySlice<UInt8>, truncated: Bool)? {
    while true {
      if let end = buffer[position...].firstIndex(of: 10) {
        var line = buffer[position..<end]
        position = end + 1
        if line.last == 13 { line = line.dropLast() }
        return (line, false)
      }
      if buffer.count - position > Self.maxLineBytes {
        let line = buffer[position..<(position + Self.maxLineBytes)]
        // Skip the rest of the overlong line.
        buffer = Array(buffer[(position + Self.maxLineBytes)...])
        position = 0
        skipToLineEnd()
        return (line, true)
      }
      if finished {
        guard position < buffer.count else { return nil }
        let line = buffer[position...]
        position = buffer.count
        return (line, false)
      }
      refill()
    }
  }

  private mutating func refill() {
    buffer.removeSubrange(0..<position)
    position = 0
    let block = handle.readData(ofLength: Self.blockBytes)
    if block.isEmpty { finished = true } else { buffer.append(contentsOf: block) }
  }

  private mutating func skipToLineEnd() {
    while true {
      if let end = buffer.firstIndex(of: 10) {
        buffer.removeSubrange(0...end)
        return
      }
      buffer.removeAll(keepingCapacity: true)
      if finished { return }
      refill()
    }
  }
}
