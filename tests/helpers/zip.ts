import { promisify } from 'node:util';
import yauzl, { type Entry, type ZipFile } from 'yauzl';

/** Every file of a zip archive, by name, read with a real unzip library (yauzl). */
export async function unzip(archive: Buffer): Promise<Map<string, Buffer>> {
  const zip = (await promisify<Buffer, yauzl.Options, ZipFile>(yauzl.fromBuffer)(archive, { lazyEntries: true })) as ZipFile;
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: Entry) => {
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', reject);
        stream.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });
  return files;
}
