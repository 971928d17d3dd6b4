/**
 * The spill of an import (the domain's ImportSpill.ts) as a file: an import
 * puts its answers and records there chunk by chunk, so that its memory
 * stays bounded whatever the size of its input, and reads them back from the
 * operating system's file cache. The file is unlinked as soon as it is open:
 * it has no name anyone could read it by, and it is gone when the process
 * ends, however it ends (a kill -9 included). It lives in the system's
 * temporary directory (TMPDIR) unless told another.
 */
import { randomUUID } from "node:crypto"
import { closeSync, openSync, readSync, rmSync, unlinkSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type ChunkSpill, ImportSpillFailed } from "@ratings/domain/import/ImportSpill"

export interface SpillFile extends ChunkSpill {
  /** Bytes put so far. */
  readonly bytes: () => number
  /** Closes the file, which frees its space; once closed it is neither read nor written. */
  readonly close: () => void
}

const failed = (dir: string, doing: string, e: unknown): ImportSpillFailed =>
  new ImportSpillFailed(
    `cannot ${doing} the import's working file in ${dir} (${(e as Error).message}); set TMPDIR to a directory with free space`
  )

/** A new, nameless spill file in `dir`. */
export const spillFile = (dir: string = tmpdir()): SpillFile => {
  const path = join(dir, `ratings-import-${process.pid}-${randomUUID()}`)
  let fd = -1
  try {
    fd = openSync(path, "wx+", 0o600)
    unlinkSync(path)
  } catch (e) {
    if (fd >= 0) {
      closeSync(fd)
      rmSync(path, { force: true })
    }
    throw failed(dir, "create", e)
  }
  let end = 0
  // A closed file's number may be another file's by now: never used again.
  const open = (doing: string): number => {
    if (fd < 0) throw failed(dir, doing, new Error("the file is closed"))
    return fd
  }
  return {
    put: (bytes) => {
      const at = end
      const into = open("write")
      try {
        for (let done = 0; done < bytes.length; )
          done += writeSync(into, bytes, done, bytes.length - done, at + done)
      } catch (e) {
        throw failed(dir, "write", e)
      }
      end += bytes.length
      return at
    },
    get: (at, into) => {
      const from = open("read")
      try {
        for (let done = 0; done < into.length; ) {
          const n = readSync(from, into, done, into.length - done, at + done)
          if (n === 0) throw new Error(`the file ends at ${at + done}`)
          done += n
        }
      } catch (e) {
        throw failed(dir, "read", e)
      }
    },
    bytes: () => end,
    close: () => {
      if (fd < 0) return
      closeSync(fd)
      fd = -1
    }
  }
}
