import type { Db } from '../../store';
import type { Recipe } from './devcontainer';

/** A workspace's recipe as it was applied at create (migration 032): what sessions, Run and previews read. */
export class RecipeStore {
  constructor(private readonly db: Db) {}

  save(workspaceId: string, recipe: Recipe, image: string | null, notes: string[]): void {
    this.db
      .prepare(
        `INSERT INTO workspace_recipes (workspace_id, file, recipe, image, notes, created_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(workspace_id) DO UPDATE SET file = excluded.file, recipe = excluded.recipe, image = excluded.image,
         notes = excluded.notes`,
      )
      .run(workspaceId, recipe.file, JSON.stringify(recipe), image, JSON.stringify(notes), new Date().toISOString());
  }

  get(workspaceId: string): { recipe: Recipe; image: string | null; notes: string[] } | null {
    const row = this.db
      .prepare('SELECT recipe, image, notes FROM workspace_recipes WHERE workspace_id = ?')
      .get(workspaceId) as { recipe: string; image: string | null; notes: string } | undefined;
    if (!row) return null;
    return { recipe: JSON.parse(row.recipe) as Recipe, image: row.image, notes: JSON.parse(row.notes) as string[] };
  }
}
