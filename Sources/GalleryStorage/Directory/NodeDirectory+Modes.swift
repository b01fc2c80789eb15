import Foundation
import GalleryIO
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Modes: a node's directory holds the space's secret, its key, every title and every image, so
/// it is its owner's only: directories 0700, files 0600. New files are created so (`StorageFile`,
/// `writePrivately`); a directory made or opened by an older version, whose files were 0644 and
/// directories 0755, is tightened when the node takes it.
extension NodeDirectory {
    /// The mode of the node's directories.
    package static let directoryMode: mode_t = 0o700
    /// The mode of the files in them.
    package static let fileMode: mode_t = 0o600

    /// Sets the directory and everything under it to 0700 (directories) and 0600 (everything
    /// else), without following symbolic links (a link's target may be anyone's file).
    ///
    /// - Complexity: O(n) in the entries of the tree (one `lstat` and at most one `chmod` each).
    package func tightenModes() throws(ServerError) {
        try tighten(url.path)
    }

    private func tighten(_ path: String) throws(ServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            // Gone meanwhile (a temporary file renamed into place): nothing to tighten.
            if errno == ENOENT { return }
            throw .io("cannot inspect \(path): \(String(cString: strerror(errno)))")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK { return }
        let wanted = type == S_IFDIR ? Self.directoryMode : Self.fileMode
        if info.st_mode & 0o7777 != wanted, chmod(path, wanted) != 0, errno != ENOENT {
            throw .io("cannot set the mode of \(path): \(String(cString: strerror(errno)))")
        }
        guard type == S_IFDIR else { return }
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .io("cannot list \(path): \(error.localizedDescription)")
        }
        for entry in entries {
            try tighten(path + "/" + entry)
        }
    }
}
