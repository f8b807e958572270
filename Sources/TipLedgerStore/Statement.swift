// SPDX-License-Identifier: GPL-3.0-or-later
internal import CSQLite

/// A prepared statement. Values are always bound as parameters; errors carry the SQL text but
/// never the bound values.
final class Statement {
    private let handle: OpaquePointer
    private let database: OpaquePointer
    let sql: String
    /// The bytes of the text and blob values of the current run, handed to SQLite as
    /// SQLITE_STATIC so that it neither allocates nor copies them. SQLite reads bound values only
    /// while stepping, and every run binds every parameter anew before it steps, so the buffer is
    /// reused run after run; it grows only between runs, never under a bound value.
    private var bound: UnsafeMutableRawBufferPointer
    /// Bytes of `bound` used by the current run.
    private var boundUsed = 0
    /// Bytes the current run's text and blob values needed in all, kept or not.
    private var boundWanted = 0

    init(database: OpaquePointer, sql: String) throws(StoreError) {
        var handle: OpaquePointer? = nil
        let status = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard status == SQLITE_OK, let handle else {
            throw StoreError(code: status, message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
        self.handle = handle
        self.database = database
        self.sql = sql
        // Never empty: an empty value still needs a pointer, since SQLite binds a null pointer
        // as NULL.
        bound = .allocate(byteCount: 256, alignment: 1)
    }

    deinit {
        sqlite3_finalize(handle)
        bound.deallocate()
    }

    /// Rewinds the statement. Its bindings are left as they are: every `bind` sets all of them
    /// (clearing them was half of what fetching a cached statement cost).
    func reset() {
        sqlite3_reset(handle)
    }

    /// Binds `values` to parameters 1...n, one value for each parameter.
    func bind(_ values: [any SQLBindable]) throws(StoreError) {
        startBinding()
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
        try expectEveryParameterBound(by: Int32(values.count))
    }

    /// Binds `values` to parameters 1...n, one value for each parameter, each as its own type:
    /// no value is boxed and no array is built, which matters on the recording path (a dozen
    /// values per row).
    func bind<each Value: SQLBindable>(_ values: repeat each Value) throws(StoreError) {
        startBinding()
        var index: Int32 = 0
        for value in repeat each values {
            index += 1
            try bind(value, at: index)
        }
        try expectEveryParameterBound(by: index)
    }

    /// Makes `bound` large enough for as many bytes as the last run needed, while no parameter
    /// of this run is bound yet, and starts filling it from the beginning.
    private func startBinding() {
        if boundWanted > bound.count {
            bound.deallocate()
            bound = .allocate(byteCount: max(boundWanted, 2 * bound.count), alignment: 1)
        }
        boundUsed = 0
        boundWanted = 0
    }

    /// Throws unless `count` values set every parameter: a parameter left out would keep the
    /// value of the statement's previous run.
    private func expectEveryParameterBound(by count: Int32) throws(StoreError) {
        let parameters = sqlite3_bind_parameter_count(handle)
        guard count == parameters else {
            throw StoreError(
                code: SQLITE_RANGE, message: "the statement has \(parameters) parameters; \(count) values were given",
                sql: sql)
        }
    }

    /// Binds `value` to parameter `index` (1-based).
    @inline(__always)
    private func bind(_ value: some SQLBindable, at index: Int32) throws(StoreError) {
        let status: Int32
        switch value.sqlValue {
        case .null: status = sqlite3_bind_null(handle, index)
        case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
        case .text(let text):
            var text = text
            status = text.withUTF8 { bytes in
                let (pointer, destructor) = keep(UnsafeRawBufferPointer(bytes))
                return sqlite3_bind_text(
                    handle, index, pointer.assumingMemoryBound(to: CChar.self), Int32(bytes.count), destructor)
            }
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { buffer in
                let (pointer, destructor) = keep(buffer)
                return sqlite3_bind_blob(handle, index, pointer, Int32(buffer.count), destructor)
            }
        }
        guard status == SQLITE_OK else {
            throw StoreError(code: status, message: String(cString: sqlite3_errmsg(database)), sql: sql)
        }
    }

    /// Where SQLite is to read `bytes` from, and how it is to keep them: copied into `bound`
    /// (SQLITE_STATIC) when they fit, else in place, for SQLite to copy before the bind returns
    /// (SQLITE_TRANSIENT); the next run's `bound` will hold them.
    @inline(__always)
    private func keep(_ bytes: UnsafeRawBufferPointer) -> (UnsafeRawPointer, sqlite3_destructor_type?) {
        boundWanted += bytes.count
        // `bound` is never empty, so it always has a base address.
        let target = bound.baseAddress! + boundUsed
        guard boundUsed + bytes.count <= bound.count else {
            return (UnsafeRawPointer(bytes.baseAddress ?? UnsafeRawPointer(target)), tl_sqlite_transient())
        }
        if let source = bytes.baseAddress { target.copyMemory(from: source, byteCount: bytes.count) }
        boundUsed += bytes.count
        return (UnsafeRawPointer(target), nil)
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = StoreError(
                code: sqlite3_extended_errcode(database), message: String(cString: sqlite3_errmsg(database)), sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func blob(_ column: Int32) -> [UInt8]? {
        guard let pointer = sqlite3_column_blob(handle, column) else { return isNull(column) ? nil : [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
