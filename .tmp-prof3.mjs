import fs from 'node:fs';
