extension RandomAccessCollection where Index == Int {
  /// The first index whose element `isBefore` says is not before the point sought, in a
  /// collection where every element it is true of comes first: a binary search. (On an array or
  /// a buffer pointer, the index is the position.)
  @inline(__always)
  func partitionPoint(_ isBefore: (Element) -> Bool) -> Int {
    var (low, high) = (startIndex, endIndex)
    while low < high {
      let middle = (low + high) / 2
      if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
    }
    return low
  }
}
