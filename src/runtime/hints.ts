/**
 * What an LLM should do next after a file system error: the hint of the error envelope, by
 * errno (the Vfs's errno-like names included). `details` are the error's details (EFBIG's
 * size and limit).
 */
export function hintFor(errno: string, details: Record<string, unknown> = {}): string {
  switch (errno) {
    case 'ENOENT': return 'Check the path with ls; paths are inside the zone, / is its root.';
    case 'EROFS': return 'This zone is read-only: work on a copy in a writable zone.';
    case 'ESYMLINK': case 'EESCAPE': return 'Symbolic links are not followed out of the zone; use the real path.';
    case 'EBLOCKED': case 'EEXT': return 'This file is blocked by the zone policy and cannot be read or listed.';
    case 'EFBIG':
      if (details.operation === 'read') {
        return `The file is ${details.size} bytes, more than this zone's maximum file size (${details.limit} bytes): its content cannot ` +
          'be read here (ls -l, stat and find still show it). Ask the operator to raise maxFileSize if you need it.';
      }
      return `The file would exceed the maximum file size of this zone${details.limit === undefined ? '' : ` (${details.limit} bytes)`}.`;
    case 'EDQUOT':
      if (details.versions !== undefined) {
        return `The file fits, but not its version: this zone keeps every version in git (${details.versions} bytes of objects for this one), and they count against the quota. ` +
          'Delete files you no longer need (see stats: versions_bytes), write less, or ask the operator to run maintenance (it packs the history).';
      }
      return 'The quota is full: delete files you no longer need (see stats for usage), or write less. Files and folders count too, each one against the quota\'s file limit (max_files), however small.';
    case 'ENOTDIR': return 'A part of the path (or the cwd) is a file, not a folder: check the path with ls or stat.';
    case 'EISDIR': return 'It is a folder: give a file inside it, or use list to see its content.';
    case 'ENAMETOOLONG': return 'Names are at most 255 bytes and paths 4096: use a shorter name.';
    case 'EINVAL': return 'Paths may not contain NUL bytes or invalid text: check the path.';
    case 'EHARDLINK': return 'Files with several hard links are never written through: copy the content to a new file and write that.';
    case 'ESPECIAL': return 'FIFOs, sockets and devices are never opened: use a regular file.';
    case 'EEXIST': return 'Choose another name, or remove the existing entry first.';
    case 'ENOTEMPTY': return 'The folder is not empty: delete its entries first (or delete with recursive: true).';
    case 'ELOOP': return 'Too many symbolic links on the way: use the real path.';
    case 'ENOSPC': case 'EFSQUOT': return 'The disk holding this zone is full (nothing was written): delete files you no longer need, write less, or ask the operator for space.';
    case 'ETOODEEP': return 'This folder is nested deeper than nosh can follow (its full path passes 4096 bytes): work on a shallower folder, or move the deep part up with mv.';
    case 'EXDEV': return 'Source and destination are on different file systems and cannot be renamed: copy, then delete the source.';
    case 'EBUSY': return 'The zone root itself cannot be removed or renamed: act on the entries inside it.';
    case 'EOWNER': return details.mode === 'owner_ro'
      ? `This group file is read-only (mode owner_ro) until its owner ${details.owner} changes the mode (group_set_mode); read it, or write a copy under another name.`
      : `Only its owner ${details.owner} may change, rename or delete this group file (mode owner); read it, write a copy under another name, or ask the owner (group_set_mode / group_chown).`;
    case 'ELOCKED': return `${details.holder} is editing this file (locked edit, until ${details.expires}); reads are allowed: retry after the lock is saved or cancelled, or ask the holder or the file's owner to force_unlock.`;
    default: return '';
  }
}
